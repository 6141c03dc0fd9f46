// Choosing how to run the server, with no VS Code API in it (the extension
// passes its answers in; the unit tests pass their own): a configured
// `skillLSP.server.path` wins; else the bundled server runs with the first
// interpreter that can load it: the Python extension's selection, the
// workspace's `.venv`, then `python3` / `python` on PATH. In Restricted Mode
// nothing inside the workspace runs: no workspace setting of the server path,
// no interpreter the workspace holds. Every place looked at is written down,
// with the reason it was passed over.

import * as path from "node:path";

/** What an interpreter said to `launch.py --check`. */
export type Probe =
  | { ok: true; python: string; server: string; serverPath: string; yamlLoader: string }
  | { ok: false; error: string };

export interface ServerSettingValues {
  /** `skillLSP.server.path` from user settings. */
  user?: string;
  /** From workspace or folder settings (ignored in Restricted Mode). */
  workspace?: string;
}

export interface LocateEnvironment {
  trusted: boolean;
  platform: NodeJS.Platform;
  /** Workspace folders, the one of the active file first. */
  folders: string[];
  serverPath: ServerSettingValues;
  serverArgs: string[];
  importStrategy: "useBundled" | "fromEnvironment";
  /** The bundled launcher, `bundled/tool/launch.py`. */
  launcher: string;
  pathDirs: string[];
  home: string;
  /** The Python extension's interpreter for the folder: a path, or why there is none. */
  pythonExtension: () => Promise<{ path: string } | { none: string }>;
  isExecutable: (file: string) => Promise<boolean>;
  /** The real path, or the path itself when it cannot be resolved. */
  realpath: (file: string) => Promise<string>;
  probe: (python: string) => Promise<Probe>;
}

export interface Located {
  command: string;
  args: string[];
  /** Where it came from, for the log: "skillLSP.server.path (user settings)", "python3 on PATH". */
  origin: string;
  /** The interpreter's answer to the check, when the bundled server is used. */
  probe?: Probe & { ok: true };
}

export interface Outcome {
  server?: Located;
  /** One line per place looked at, in order: "<place>: <what happened>". */
  looked: string[];
  /** The configured server path that was used and failed (no other place is tried then). */
  failedSetting?: string;
}

/** Decides how to run the server. Never throws: failures are lines in `looked`. */
export async function locateServer(env: LocateEnvironment): Promise<Outcome> {
  const looked: string[] = [];

  const setting = chooseSetting(env, looked);
  if (setting) {
    const command = await resolveSetting(setting.value, env);
    if (!command) {
      looked.push(`skillLSP.server.path (${setting.scope}) "${setting.value}": not found on PATH`);
      return { looked, failedSetting: setting.value };
    }
    if (!env.trusted && (await insideWorkspace(command, env))) {
      looked.push(`skillLSP.server.path (${setting.scope}) "${setting.value}": ${command} is inside the workspace, which Restricted Mode does not run`);
      return { looked, failedSetting: setting.value };
    }
    if (!(await env.isExecutable(command))) {
      // An explicit setting that does not work is reported, not papered over
      // with a server the user did not ask for.
      looked.push(`skillLSP.server.path (${setting.scope}) "${setting.value}": ${command} is not an executable file`);
      return { looked, failedSetting: setting.value };
    }
    looked.push(`skillLSP.server.path (${setting.scope}): ${command}`);
    return { server: { command, args: env.serverArgs, origin: `skillLSP.server.path (${setting.scope})` }, looked };
  }
  looked.push("skillLSP.server.path: not set");

  const tried = new Set<string>();
  for await (const candidate of interpreters(env, looked)) {
    const real = await env.realpath(candidate.python);
    if (tried.has(real)) {
      looked.push(`${candidate.place}: ${candidate.python} (already tried)`);
      continue;
    }
    tried.add(real);
    if (!env.trusted && (await insideWorkspace(candidate.python, env))) {
      looked.push(`${candidate.place}: ${candidate.python} is inside the workspace, which Restricted Mode does not run`);
      continue;
    }
    const probe = await env.probe(candidate.python);
    if (!probe.ok) {
      looked.push(`${candidate.place}: ${candidate.python}: ${probe.error}`);
      continue;
    }
    looked.push(`${candidate.place}: ${candidate.python} (Python ${probe.python}) runs the bundled server ${probe.server}`);
    return {
      server: {
        command: candidate.python,
        args: ["-I", env.launcher, "--import-strategy", env.importStrategy, "--", ...env.serverArgs],
        origin: candidate.place,
        probe,
      },
      looked,
    };
  }
  return { looked };
}

function chooseSetting(env: LocateEnvironment, looked: string[]): { value: string; scope: string } | undefined {
  const workspace = env.serverPath.workspace?.trim();
  const user = env.serverPath.user?.trim();
  if (workspace) {
    if (env.trusted) {
      return { value: workspace, scope: "workspace settings" };
    }
    looked.push(`skillLSP.server.path (workspace settings) "${workspace}": ignored in Restricted Mode`);
  }
  return user ? { value: user, scope: "user settings" } : undefined;
}

interface Candidate {
  place: string;
  python: string;
}

async function* interpreters(env: LocateEnvironment, looked: string[]): AsyncGenerator<Candidate> {
  if (!env.trusted) {
    looked.push("the Python extension's interpreter and the workspace's .venv: skipped in Restricted Mode (they belong to the workspace)");
  } else {
    const selected = await env.pythonExtension();
    if ("path" in selected) {
      yield { place: "the Python extension's interpreter", python: selected.path };
    } else {
      looked.push(`the Python extension's interpreter: ${selected.none}`);
    }
    for (const folder of env.folders) {
      const python = venvPython(folder, env.platform);
      if (await env.isExecutable(python)) {
        yield { place: `the workspace's .venv`, python };
      } else {
        looked.push(`the workspace's .venv: no ${python}`);
      }
    }
  }
  const names = env.platform === "win32" ? ["python3", "python", "py"] : ["python3", "python"];
  for (const name of names) {
    const found = await findOnPath(name, env);
    if (found) {
      yield { place: `${name} on PATH`, python: found };
    } else {
      looked.push(`${name} on PATH: not found${env.trusted ? "" : " outside the workspace"}`);
    }
  }
}

/** Path functions of the platform looked at (the tests run Windows' on Linux). */
function paths(platform: NodeJS.Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

export function venvPython(folder: string, platform: NodeJS.Platform): string {
  return platform === "win32"
    ? path.win32.join(folder, ".venv", "Scripts", "python.exe")
    : path.posix.join(folder, ".venv", "bin", "python");
}

/** The first executable `name` on PATH; in Restricted Mode, PATH entries inside the workspace (or relative ones) are passed over. */
export async function findOnPath(name: string, env: LocateEnvironment): Promise<string | undefined> {
  const extensions =
    env.platform === "win32" ? [".exe", ".cmd", ".bat", ""] : [""];
  for (const dir of env.pathDirs) {
    if (dir === "") {
      continue;
    }
    if (!env.trusted && (!isAbsolute(dir, env.platform) || (await insideWorkspace(dir, env)))) {
      continue;
    }
    for (const ext of extensions) {
      const candidate = paths(env.platform).join(dir, name + ext);
      if (await env.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function isAbsolute(file: string, platform: NodeJS.Platform): boolean {
  return paths(platform).isAbsolute(file);
}

/** True when `file` (after resolving links) lies in a workspace folder. */
export async function insideWorkspace(file: string, env: LocateEnvironment): Promise<boolean> {
  const real = await env.realpath(file);
  for (const folder of env.folders) {
    for (const base of new Set([folder, await env.realpath(folder)])) {
      for (const candidate of new Set([file, real])) {
        const rel = paths(env.platform).relative(base, candidate);
        if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel, env.platform))) {
          return true;
        }
      }
    }
  }
  return false;
}

/** A bare name is looked up on PATH; `~`, `${userHome}` and `${workspaceFolder}` are expanded. */
async function resolveSetting(value: string, env: LocateEnvironment): Promise<string | undefined> {
  if (!/[/\\]/.test(value) && !value.startsWith("~") && !value.includes("${")) {
    return findOnPath(value, env);
  }
  const folder = env.folders[0] ?? "";
  let expanded = value.replace(/\$\{userHome\}/g, env.home).replace(/\$\{workspaceFolder\}/g, folder);
  if (expanded === "~" || expanded.startsWith("~/") || expanded.startsWith("~\\")) {
    expanded = env.home + expanded.slice(1);
  }
  return paths(env.platform).resolve(folder || env.home, expanded);
}
