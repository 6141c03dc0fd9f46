// Entry point: owns the one LanguageClient of the window, restarts it when the
// way to reach the server changes, and registers the commands.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { CLIENT_NAME, changesServer, createClient, notifySettingsChanged } from "./client";
import { DISCLOSURE_SCHEME, DisclosureDocuments, showDisclosure } from "./disclosure";
import { findServer, onInterpreterChange } from "./python";
import { showReferences } from "./references";
import { SkillsView } from "./skillsView";

/** Starts, stops and restarts the server, one operation after another. */
class ServerController {
  private running: LanguageClient | undefined;
  private lifecycle: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly extensionPath: string,
    /** Called with each client once it runs. */
    private readonly started: (client: LanguageClient) => void,
  ) {}

  get client(): LanguageClient | undefined {
    return this.running;
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.stopNow();
      await this.startNow();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopNow());
  }

  private enqueue(operation: () => Promise<void>): Promise<void> {
    this.lifecycle = this.lifecycle.then(operation, operation);
    return this.lifecycle;
  }

  private async startNow(): Promise<void> {
    const resource =
      vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const { server, failedSetting } = await findServer(this.log, resource, this.extensionPath);
    if (!server) {
      this.log.error("No way to run the server: every place above was looked at.");
      void reportNoServer(this.log, failedSetting);
      return;
    }
    this.log.info(`Starting the server (${server.origin}): ${server.command} ${server.args.join(" ")}`);
    this.running = createClient(server, this.log);
    try {
      await this.running.start();
      this.started(this.running);
    } catch (error) {
      // The language client has already shown the failure with its details.
      this.log.error(`The server did not start: ${describe(error)}`);
    }
  }

  private async stopNow(): Promise<void> {
    const client = this.running;
    this.running = undefined;
    try {
      // Sends shutdown and exit (within the client's own time limit), then frees it.
      await client?.dispose();
    } catch (error) {
      this.log.warn(`Stopping the server: ${describe(error)}`);
    }
  }
}

let controller: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  const skills = new SkillsView(() => controller?.client);
  const server = new ServerController(log, context.extensionPath, (client) => { skills.attach(client); });
  controller = server;
  const disclosures = new DisclosureDocuments();

  context.subscriptions.push(
    log,
    disclosures,
    skills,
    vscode.workspace.registerTextDocumentContentProvider(DISCLOSURE_SCHEME, disclosures),
    vscode.commands.registerCommand("skillLsp.restart", () => server.restart()),
    vscode.commands.registerCommand("skillLsp.showOutput", () => {
      log.show();
    }),
    vscode.commands.registerCommand("skillLsp.showDisclosure", () =>
      showDisclosure(server.client, disclosures),
    ),
    // Not in the palette: the server's "used by N agents" code lens calls it.
    vscode.commands.registerCommand("skillLsp.showReferences", showReferences),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (changesServer(event)) {
        void server.restart();
      } else if (server.client) {
        void notifySettingsChanged(server.client, event);
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void server.restart()),
  );

  const interpreterListener = await onInterpreterChange(() => {
    // An explicit server path does not depend on the interpreter.
    if (!vscode.workspace.getConfiguration("skillLSP.server").get<string>("path")) {
      log.info("The selected Python interpreter changed; restarting.");
      void server.restart();
    }
  });
  if (interpreterListener) {
    context.subscriptions.push(interpreterListener);
  }

  void server.restart();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}

async function reportNoServer(log: vscode.LogOutputChannel, failedSetting: string | undefined): Promise<void> {
  const problem =
    failedSetting === undefined
      ? "no Python 3.10 or later could run the bundled server (install Python 3, or set skillLSP.server.path)"
      : `skillLSP.server.path "${failedSetting}" cannot be run`;
  const choice = await vscode.window.showErrorMessage(
    `Skill LSP: ${problem}. The Skill LSP output lists every place looked at.`,
    "Show Output",
    "Open Settings",
  );
  if (choice === "Show Output") {
    log.show();
  } else if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "skillLSP.server");
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
