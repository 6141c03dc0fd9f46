// Finding the server: an explicit path, the Python extension's interpreter, or
// `skill-lsp` on PATH, in that order. Every step says in the log why it was
// skipped, so a user who ends up with no server can see what was tried.

import { execFile } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { access } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { PythonExtension } from "@vscode/python-extension";
import * as vscode from "vscode";

/** How to start the server, and where that answer came from (for the log). */
export interface ServerCommand {
  readonly command: string;
  readonly args: string[];
  readonly origin: "setting" | "python" | "path";
}

const MODULE = "skill_lsp";
const EXECUTABLE = "skill-lsp";
const IMPORT_CHECK_TIMEOUT_MS = 10_000;

/**
 * Finds the server for `resource`'s workspace folder, or returns undefined
 * when every way failed (the reasons are in `log`).
 */
export async function findServer(
  log: vscode.LogOutputChannel,
  resource: vscode.Uri | undefined,
): Promise<ServerCommand | undefined> {
  const config = vscode.workspace.getConfiguration("skillLsp.server", resource);
  const args = config.get<string[]>("args", ["serve"]);

  const configured = config.get<string>("path", "").trim();
  if (configured) {
    // A bare name ("skill-lsp") is looked up on PATH, as a shell would.
    const command = isBareName(configured)
      ? await findOnPath(configured)
      : expandPath(configured, resource);
    if (command && (await isExecutable(command))) {
      return { command, args, origin: "setting" };
    }
    // An explicit setting that does not work is reported, not papered over
    // with a different server the user did not ask for.
    log.error(`skillLsp.server.path is set to "${configured}", which is not an executable file.`);
    return undefined;
  }

  if (!vscode.workspace.isTrusted) {
    log.info("Restricted Mode: not taking the server from the workspace's Python environment.");
  } else {
    const python = await activeInterpreter(log, resource);
    if (python) {
      if (await hasModule(python, log)) {
        return { command: python, args: ["-m", MODULE, ...args], origin: "python" };
      }
      log.info(`The selected interpreter ${python} cannot import ${MODULE}.`);
    }
  }

  const onPath = await findOnPath(EXECUTABLE);
  if (onPath) {
    return { command: onPath, args, origin: "path" };
  }
  log.info(`No "${EXECUTABLE}" executable on PATH.`);
  return undefined;
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

async function activeInterpreter(
  log: vscode.LogOutputChannel,
  resource: vscode.Uri | undefined,
): Promise<string | undefined> {
  const api = await pythonApi();
  if (!api) {
    log.info("The Python extension (ms-python.python) is not installed or not active.");
    return undefined;
  }
  try {
    const envPath = api.environments.getActiveEnvironmentPath(resource);
    const env = await api.environments.resolveEnvironment(envPath);
    const executable = env?.executable.uri?.fsPath;
    if (!executable) {
      log.info(`The Python extension's environment ${envPath.path} has no interpreter.`);
    }
    return executable;
  } catch (error) {
    log.warn(`The Python extension could not resolve the interpreter: ${String(error)}`);
    return undefined;
  }
}

function hasModule(python: string, log: vscode.LogOutputChannel): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      python,
      ["-c", `import ${MODULE}`],
      { timeout: IMPORT_CHECK_TIMEOUT_MS, windowsHide: true },
      (error) => {
        if (error) {
          log.debug(`${python} -c "import ${MODULE}" failed: ${error.message}`);
        }
        resolve(!error);
      },
    );
  });
}

/** The first `name` on PATH that is an executable file, as a shell would find it. */
async function findOnPath(name: string): Promise<string | undefined> {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "");
  const extensions =
    process.platform === "win32"
      ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").filter((ext) => ext !== "")
      : [""];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      if (await isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function isBareName(value: string): boolean {
  return !/[/\\]/.test(value) && !value.startsWith("~") && !value.includes("${");
}

/** Expands a leading `~` and `${workspaceFolder}` / `${userHome}` in a setting. */
function expandPath(value: string, resource: vscode.Uri | undefined): string {
  const folder =
    (resource && vscode.workspace.getWorkspaceFolder(resource)) ??
    vscode.workspace.workspaceFolders?.[0];
  let expanded = value
    .replace(/\$\{userHome\}/g, os.homedir())
    .replace(/\$\{workspaceFolder\}/g, folder?.uri.fsPath ?? "");
  if (expanded === "~" || expanded.startsWith("~/") || expanded.startsWith("~\\")) {
    expanded = path.join(os.homedir(), expanded.slice(1));
  }
  return path.resolve(folder?.uri.fsPath ?? os.homedir(), expanded);
}
