// Finding the server in VS Code: gathers the settings, the workspace trust,
// the Python extension's interpreter and PATH, lets `locate.ts` choose, and
// runs `launch.py --check` on each interpreter it considers. Everything it
// looked at goes to the log, so a user with no server can see why.

import { execFile } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { access, realpath, stat } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { PythonExtension } from "@vscode/python-extension";
import * as vscode from "vscode";
import { type LocateEnvironment, type Outcome, type Probe, locateServer } from "./locate";

export type { Located } from "./locate";

// Starting Python and importing the server and its compiled modules takes
// about a second; a machine under load gets twenty.
const CHECK_TIMEOUT_MS = 20_000;

/** Decides how to run the server for `resource`'s folder, writing each place it looked at to `log`. */
export async function findServer(
  log: vscode.LogOutputChannel,
  resource: vscode.Uri | undefined,
  extensionPath: string,
): Promise<Outcome> {
  const config = vscode.workspace.getConfiguration("skillLSP", resource);
  const inspected = config.inspect<string>("server.path");
  const folders = orderedFolders(resource);
  const launcher = path.join(extensionPath, "bundled", "tool", "launch.py");
  const trusted = vscode.workspace.isTrusted;
  if (!trusted) {
    // VS Code itself hides the workspace's values of the restricted settings
    // (package.json `restrictedConfigurations`); locate.ts ignores them too.
    log.info("Restricted Mode: the server is taken from user settings or a Python on PATH outside the workspace; workspace settings of skillLSP.server.* are not used and nothing the workspace holds is run.");
  }
  const env: LocateEnvironment = {
    trusted,
    platform: process.platform,
    folders,
    serverPath: {
      user: inspected?.globalValue,
      workspace: inspected?.workspaceFolderValue ?? inspected?.workspaceValue,
    },
    serverArgs: serverArgs(config, trusted),
    importStrategy: config.get<string>("importStrategy") === "fromEnvironment" ? "fromEnvironment" : "useBundled",
    launcher,
    pathDirs: (process.env.PATH ?? "").split(path.delimiter),
    home: os.homedir(),
    pythonExtension: () => selectedInterpreter(resource),
    isExecutable,
    realpath: async (file) => {
      try {
        return await realpath(file);
      } catch {
        return file;
      }
    },
    probe: (python) => probe(python, launcher),
  };
  const outcome = await locateServer(env);
  for (const line of outcome.looked) {
    log.info(`Looked at ${line}`);
  }
  if (outcome.server?.probe) {
    const { python, serverPath, yamlLoader } = outcome.server.probe;
    log.info(`Python ${python} imports the server from ${serverPath}; YAML loader: ${yamlLoader}.`);
  }
  return outcome;
}

/** `skillLSP.server.args`; in Restricted Mode only the user's value counts. */
function serverArgs(config: vscode.WorkspaceConfiguration, trusted: boolean): string[] {
  if (trusted) {
    return config.get<string[]>("server.args", ["serve"]);
  }
  const inspected = config.inspect<string[]>("server.args");
  return inspected?.globalValue ?? inspected?.defaultValue ?? ["serve"];
}

function orderedFolders(resource: vscode.Uri | undefined): string[] {
  const first = resource && vscode.workspace.getWorkspaceFolder(resource);
  const all = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === "file");
  const ordered = first ? [first, ...all.filter((folder) => folder !== first)] : all;
  return ordered.map((folder) => folder.uri.fsPath);
}

/**
 * Calls `listener` whenever the Python extension's selected interpreter
 * changes. Without the Python extension this is a no-op.
 */
export async function onInterpreterChange(
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi();
  return api?.environments.onDidChangeActiveEnvironmentPath(listener);
}

async function pythonApi(): Promise<PythonExtension | undefined> {
  if (!vscode.extensions.getExtension("ms-python.python")) {
    return undefined;
  }
  try {
    return await PythonExtension.api();
  } catch {
    return undefined;
  }
}

async function selectedInterpreter(resource: vscode.Uri | undefined): Promise<{ path: string } | { none: string }> {
  const api = await pythonApi();
  if (!api) {
    return { none: "the Python extension (ms-python.python) is not installed or not active" };
  }
  try {
    const envPath = api.environments.getActiveEnvironmentPath(resource);
    const env = await api.environments.resolveEnvironment(envPath);
    const executable = env?.executable.uri?.fsPath;
    return executable ? { path: executable } : { none: `its environment ${envPath.path} has no interpreter` };
  } catch (error) {
    return { none: `it could not resolve the interpreter (${String(error)})` };
  }
}

/** Runs `python -I launch.py --check` and reads its one JSON line. */
function probe(python: string, launcher: string): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(
      python,
      ["-I", launcher, "--check"],
      { timeout: CHECK_TIMEOUT_MS, windowsHide: true },
      (error, stdout, stderr) => {
        const line = stdout.trim().split(/\r?\n/).pop() ?? "";
        try {
          const answer = JSON.parse(line) as Record<string, unknown>;
          if (answer.ok === true) {
            resolve({
              ok: true,
              python: String(answer.python),
              server: String(answer.server),
              serverPath: String(answer.serverPath),
              yamlLoader: String(answer.yamlLoader),
            });
            return;
          }
          if (typeof answer.error === "string") {
            resolve({ ok: false, error: answer.error });
            return;
          }
        } catch {
          // Not the launcher's answer: an interpreter too old for `-I`, a crash, a timeout.
        }
        const detail = (stderr.trim().split(/\r?\n/).pop() ?? "") || (error ? error.message : "no answer");
        resolve({ ok: false, error: `cannot run the bundled server (${detail})` });
      },
    );
  });
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, fsConstants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
