// Entry point: owns the one LanguageClient of the window, restarts it when the
// way to reach the server changes, and registers the commands.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { CLIENT_NAME, changesServer, createClient, notifySettingsChanged } from "./client";
import { DISCLOSURE_SCHEME, DisclosureDocuments, showDisclosure } from "./disclosure";
import { findServer, onInterpreterChange } from "./python";
import { showReferences } from "./references";

const INSTALL_COMMAND = "pip install skill-lsp";

/** Starts, stops and restarts the server, one operation after another. */
class ServerController {
  private running: LanguageClient | undefined;
  private lifecycle: Promise<void> = Promise.resolve();

  constructor(private readonly log: vscode.LogOutputChannel) {}

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
    const server = await findServer(this.log, resource);
    if (!server) {
      void reportNoServer();
      return;
    }
    this.log.info(`Starting the server (${server.origin}): ${server.command} ${server.args.join(" ")}`);
    this.running = createClient(server, this.log);
    try {
      await this.running.start();
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
  const server = new ServerController(log);
  controller = server;
  const disclosures = new DisclosureDocuments();

  context.subscriptions.push(
    log,
    disclosures,
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
    if (!vscode.workspace.getConfiguration("skillLsp.server").get<string>("path")) {
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

async function reportNoServer(): Promise<void> {
  const choice = await vscode.window.showErrorMessage(
    "Skill LSP: no server found. Set skillLsp.server.path, select a Python interpreter that has skill-lsp installed, or put skill-lsp on PATH (the Skill LSP output lists what was tried).",
    "Open Settings",
    "How to Install",
  );
  if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "skillLsp.server.path");
  } else if (choice === "How to Install") {
    const copy = await vscode.window.showInformationMessage(
      `Install the server into the Python environment VS Code uses, or anywhere on PATH: ${INSTALL_COMMAND}`,
      "Copy Command",
    );
    if (copy) {
      await vscode.env.clipboard.writeText(INSTALL_COMMAND);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
