// Tests of bundled/tool/launch.py run by this machine's python3, against a
// small bundle of its own (a stand-in skill_lsp package), so they need no
// `npm run bundle`: what `--check` answers, and what the server start runs.

import { strict as assert } from "node:assert";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";

const LAUNCHER = path.join(__dirname, "..", "..", "bundled", "tool", "launch.py");
const python = process.env.SKILL_LSP_TEST_PYTHON ?? "python3";
const version = execFileSync(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
const root = mkdtempSync(path.join(tmpdir(), "skill-lsp-launch-"));
after(() => {
  rmSync(root, { recursive: true, force: true });
});

/**
 * An extension directory with the real launcher and a bundle for `pythons`
 * laid out as scripts/bundle.py does: a stand-in server in libs/common (what
 * every version shares) and, in each libs/cp3XY, a module of that version's
 * own, `own_cp3XY`.
 */
function bundle(name: string, pythons: string[], check: string[]): string {
  const tool = path.join(root, name, "bundled", "tool");
  mkdirSync(tool, { recursive: true });
  copyFileSync(LAUNCHER, path.join(tool, "launch.py"));
  const libs = path.join(root, name, "bundled", "libs");
  const pkg = path.join(libs, "common", "skill_lsp");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(path.join(pkg, "__init__.py"), '__version__ = "9.9.9"\n');
  writeFileSync(path.join(pkg, "cli.py"), "import sys\ndef run():\n    print('server', sys.argv[1:])\n");
  // The launcher reports which YAML loader the server gets.
  writeFileSync(path.join(libs, "common", "yaml.py"), "CSafeLoader = object\n");
  for (const one of pythons) {
    const tag = `cp${one.replace(".", "")}`;
    mkdirSync(path.join(libs, tag), { recursive: true });
    writeFileSync(path.join(libs, tag, `own_${tag}.py`), "");
  }
  writeFileSync(path.join(libs, "manifest.json"), JSON.stringify({ target: "linux-x64", pythons, shared: "common", check }));
  return path.join(tool, "launch.py");
}

function run(launcher: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(python, ["-I", launcher, ...args], { encoding: "utf8", cwd: root });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("--check answers ok with the versions of Python and of the bundled server", () => {
  const result = run(bundle("good", [version], ["json", "skill_lsp.cli"]), ["--check"]);
  assert.equal(result.status, 0);
  const answer = JSON.parse(result.stdout) as Record<string, unknown>;
  assert.equal(answer.ok, true);
  assert.equal(answer.server, "9.9.9");
  assert.equal(answer.yamlLoader, "C");
  assert.match(String(answer.python), new RegExp(`^${version.replace(".", "\\.")}\\.`));
});

test("--check loads from the version's own libraries and the shared ones, not another version's", () => {
  const own = `own_cp${version.replace(".", "")}`;
  const launcher = bundle("layered", [version, "3.99"], ["skill_lsp.cli", own]);
  const answer = JSON.parse(run(launcher, ["--check"]).stdout) as Record<string, unknown>;
  assert.equal(answer.ok, true, String(answer.error));
  const other = JSON.parse(run(bundle("layered-other", [version, "3.99"], ["own_cp399"]), ["--check"]).stdout) as Record<string, unknown>;
  assert.match(String(other.error), /cannot load the bundled 'own_cp399': ModuleNotFoundError/);
});

test("--check names the versions a bundle has when this Python's is not among them", () => {
  const result = run(bundle("other", ["3.99"], []), ["--check"]);
  assert.equal(result.status, 1);
  const answer = JSON.parse(result.stdout) as Record<string, unknown>;
  assert.equal(answer.ok, false);
  assert.equal(answer.error, `no bundled libraries for Python ${version} in this linux-x64 build of the extension (it has 3.99)`);
});

test("--check names the module that cannot be loaded", () => {
  const result = run(bundle("broken", [version], ["tree_sitter_that_is_not_there"]), ["--check"]);
  assert.equal(result.status, 1);
  const answer = JSON.parse(result.stdout) as Record<string, unknown>;
  assert.match(String(answer.error), /cannot load the bundled 'tree_sitter_that_is_not_there': ModuleNotFoundError/);
});

test("without --check the bundled server runs with the arguments after --", () => {
  const result = run(bundle("serve", [version], []), ["--import-strategy", "useBundled", "--", "serve"]);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), "server ['serve']");
});

test("a bundle without its libraries is reported on stderr with a status of 1", () => {
  const launcher = bundle("empty", [version], []);
  rmSync(path.join(path.dirname(path.dirname(launcher)), "libs"), { recursive: true });
  const result = run(launcher, ["--", "serve"]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^skill-lsp launcher: the extension's bundled libraries are missing or damaged/);
});

test("PYTHONPATH (from a workspace's .env, say) is not read: python -I", () => {
  const launcher = bundle("shadow", [version], ["workspace_module"]);
  const workspace = path.join(root, "workspace");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, "workspace_module.py"), "raise SystemExit('workspace code ran')\n");
  const result = spawnSync(python, ["-I", launcher, "--check"], {
    encoding: "utf8",
    cwd: workspace,
    env: { ...process.env, PYTHONPATH: workspace },
  });
  const answer = JSON.parse(result.stdout) as Record<string, unknown>;
  assert.equal(answer.ok, false);
  assert.match(String(answer.error), /cannot load the bundled 'workspace_module': ModuleNotFoundError/);
});
