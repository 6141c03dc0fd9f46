// Unit tests of the choice of server (locate.ts) on a made-up machine: which
// interpreter wins, what Restricted Mode refuses, and what the log says.

import { strict as assert } from "node:assert";
import { test } from "node:test";
import { type LocateEnvironment, type Probe, locateServer } from "../locate";

const WORKSPACE = "/home/ada/project";
const LAUNCHER = "/ext/bundled/tool/launch.py";
const GOOD: Probe = { ok: true, python: "3.12.4", server: "0.1.0", serverPath: "/ext/bundled/libs/cp312/skill_lsp", yamlLoader: "C" };

/** A machine with these executables and these answers to `launch.py --check`. */
function machine(
  executables: Record<string, Probe | true>,
  overrides: Partial<LocateEnvironment> = {},
): LocateEnvironment & { probed: string[] } {
  const probed: string[] = [];
  return {
    trusted: true,
    platform: "linux",
    folders: [WORKSPACE],
    serverPath: {},
    serverArgs: ["serve"],
    importStrategy: "useBundled",
    launcher: LAUNCHER,
    pathDirs: ["/usr/local/bin", "/usr/bin"],
    home: "/home/ada",
    pythonExtension: () => Promise.resolve({ none: "the Python extension (ms-python.python) is not installed or not active" }),
    isExecutable: (file) => Promise.resolve(file in executables),
    realpath: (file) => Promise.resolve(file),
    probe: (python) => {
      probed.push(python);
      const answer = executables[python];
      return Promise.resolve(answer === undefined || answer === true ? { ok: false, error: "not a Python" } : answer);
    },
    probed,
    ...overrides,
  };
}

test("with nothing configured the bundled server runs with python3 from PATH", async () => {
  const env = machine({ "/usr/bin/python3": GOOD });
  const { server, looked } = await locateServer(env);
  assert.deepEqual(server?.command, "/usr/bin/python3");
  assert.deepEqual(server?.args, ["-I", LAUNCHER, "--import-strategy", "useBundled", "--", "serve"]);
  assert.equal(server?.origin, "python3 on PATH");
  assert.deepEqual(looked, [
    "skillLSP.server.path: not set",
    "the Python extension's interpreter: the Python extension (ms-python.python) is not installed or not active",
    `the workspace's .venv: no ${WORKSPACE}/.venv/bin/python`,
    "python3 on PATH: /usr/bin/python3 (Python 3.12.4) runs the bundled server 0.1.0",
  ]);
});

test("the Python extension's interpreter comes first, then the workspace .venv", async () => {
  const venv = `${WORKSPACE}/.venv/bin/python`;
  const env = machine(
    { "/opt/py39/bin/python": { ok: false, error: "Python 3.9.18 is too old: skill-lsp needs Python 3.10 or later" }, [venv]: GOOD, "/usr/bin/python3": GOOD },
    { pythonExtension: () => Promise.resolve({ path: "/opt/py39/bin/python" }) },
  );
  const { server, looked } = await locateServer(env);
  assert.equal(server?.command, venv);
  assert.equal(server?.origin, "the workspace's .venv");
  assert.deepEqual(env.probed, ["/opt/py39/bin/python", venv]);
  assert.ok(looked.includes("the Python extension's interpreter: /opt/py39/bin/python: Python 3.9.18 is too old: skill-lsp needs Python 3.10 or later"));
});

test("when nothing can run the server, every place looked at is named", async () => {
  const env = machine({ "/usr/bin/python3": { ok: false, error: "no bundled libraries for Python 3.15" } });
  const { server, looked, failedSetting } = await locateServer(env);
  assert.equal(server, undefined);
  assert.equal(failedSetting, undefined);
  assert.deepEqual(looked, [
    "skillLSP.server.path: not set",
    "the Python extension's interpreter: the Python extension (ms-python.python) is not installed or not active",
    `the workspace's .venv: no ${WORKSPACE}/.venv/bin/python`,
    "python3 on PATH: /usr/bin/python3: no bundled libraries for Python 3.15",
    "python on PATH: not found",
  ]);
});

test("a configured server path wins and is run with the server arguments", async () => {
  const env = machine({ "/usr/bin/python3": GOOD, "/home/ada/bin/skill-lsp": true }, { serverPath: { user: "~/bin/skill-lsp" } });
  const { server } = await locateServer(env);
  assert.deepEqual(server, { command: "/home/ada/bin/skill-lsp", args: ["serve"], origin: "skillLSP.server.path (user settings)" });
  assert.deepEqual(env.probed, []);
});

test("a configured server path that does not work is reported, and nothing else is tried", async () => {
  const env = machine({ "/usr/bin/python3": GOOD }, { serverPath: { user: "/nowhere/skill-lsp" } });
  const { server, looked, failedSetting } = await locateServer(env);
  assert.equal(server, undefined);
  assert.equal(failedSetting, "/nowhere/skill-lsp");
  assert.deepEqual(looked, ['skillLSP.server.path (user settings) "/nowhere/skill-lsp": /nowhere/skill-lsp is not an executable file']);
});

test("a bare name in the server path is looked up on PATH", async () => {
  const env = machine({ "/usr/local/bin/skill-lsp": true }, { serverPath: { workspace: "skill-lsp" } });
  const { server } = await locateServer(env);
  assert.equal(server?.command, "/usr/local/bin/skill-lsp");
  assert.equal(server?.origin, "skillLSP.server.path (workspace settings)");
});

test("Restricted Mode ignores the server path of workspace settings and runs nothing of the workspace", async () => {
  const venv = `${WORKSPACE}/.venv/bin/python`;
  const env = machine(
    { [`${WORKSPACE}/tools/skill-lsp`]: true, [venv]: GOOD, [`${WORKSPACE}/bin/python3`]: GOOD, "/usr/bin/python3": GOOD },
    {
      trusted: false,
      serverPath: { workspace: "${workspaceFolder}/tools/skill-lsp" },
      pathDirs: [`${WORKSPACE}/bin`, ".", "/usr/bin"],
      pythonExtension: () => Promise.resolve({ path: venv }),
    },
  );
  const { server, looked } = await locateServer(env);
  assert.equal(server?.command, "/usr/bin/python3");
  assert.deepEqual(env.probed, ["/usr/bin/python3"]);
  assert.deepEqual(looked.slice(0, 3), [
    'skillLSP.server.path (workspace settings) "${workspaceFolder}/tools/skill-lsp": ignored in Restricted Mode',
    "skillLSP.server.path: not set",
    "the Python extension's interpreter and the workspace's .venv: skipped in Restricted Mode (they belong to the workspace)",
  ]);
});

test("Restricted Mode refuses a user-level server path that points into the workspace", async () => {
  const env = machine(
    { [`${WORKSPACE}/tools/skill-lsp`]: true },
    { trusted: false, serverPath: { user: "${workspaceFolder}/tools/skill-lsp" } },
  );
  const { server, looked } = await locateServer(env);
  assert.equal(server, undefined);
  assert.match(looked[0] ?? "", /is inside the workspace, which Restricted Mode does not run$/);
});

test("Restricted Mode still uses a user-level server path outside the workspace", async () => {
  const env = machine({ "/opt/skill-lsp/bin/skill-lsp": true }, { trusted: false, serverPath: { user: "/opt/skill-lsp/bin/skill-lsp" } });
  const { server } = await locateServer(env);
  assert.equal(server?.command, "/opt/skill-lsp/bin/skill-lsp");
});

test("an interpreter reached twice (the .venv also selected in the Python extension) is checked once", async () => {
  const venv = `${WORKSPACE}/.venv/bin/python`;
  const env = machine(
    { [venv]: { ok: false, error: "cannot load the bundled 'tree_sitter'" }, "/usr/bin/python3": GOOD },
    { pythonExtension: () => Promise.resolve({ path: venv }) },
  );
  const { server, looked } = await locateServer(env);
  assert.equal(server?.command, "/usr/bin/python3");
  assert.deepEqual(env.probed, [venv, "/usr/bin/python3"]);
  assert.ok(looked.includes(`the workspace's .venv: ${venv} (already tried)`));
});

test("fromEnvironment is passed to the launcher", async () => {
  const env = machine({ "/usr/bin/python3": GOOD }, { importStrategy: "fromEnvironment" });
  const { server } = await locateServer(env);
  assert.deepEqual(server?.args.slice(2, 4), ["--import-strategy", "fromEnvironment"]);
});

test("on Windows the .venv interpreter is Scripts\\python.exe and PATH names get .exe", async () => {
  const env = machine(
    { "C:\\Python313\\python.exe": GOOD },
    { platform: "win32", folders: ["C:\\work\\project"], pathDirs: ["C:\\Python313"], home: "C:\\Users\\ada" },
  );
  const { server, looked } = await locateServer(env);
  assert.equal(server?.command, "C:\\Python313\\python.exe");
  assert.ok(looked.includes("the workspace's .venv: no C:\\work\\project\\.venv\\Scripts\\python.exe"));
  assert.ok(looked.includes("python3 on PATH: not found"));
});
