// "Show Agent Disclosure": asks the server for the text the agent under the
// cursor sees and opens it beside the editor as a read-only document.

import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";
import { offersDisclosure } from "./offered";

export const DISCLOSURE_SCHEME = "skill-lsp-disclosure";
/** The server's `workspace/executeCommand` command. */
export const DISCLOSURE_COMMAND = "skillLsp.disclosure";

interface Disclosure {
  title: string;
  text: string;
}

function isDisclosure(value: unknown): value is Disclosure {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { title, text } = value as Record<string, unknown>;
  return typeof title === "string" && typeof text === "string";
}

/** Holds the texts shown so far; showing a title again replaces its text. */
export class DisclosureDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  put(title: string, text: string): vscode.Uri {
    // A title is not a path: keep separators out so the tab reads as one name.
    const name = title.replace(/[/\\]/g, "-").trim() || "disclosure";
    const uri = vscode.Uri.from({ scheme: DISCLOSURE_SCHEME, path: `/${name}.md` });
    const key = uri.toString();
    const known = this.texts.has(key);
    this.texts.set(key, text);
    if (known) {
      this.changed.fire(uri);
    }
    return uri;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export async function showDisclosure(
  client: LanguageClient | undefined,
  documents: DisclosureDocuments,
): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !offersDisclosure(editor.document.languageId, editor.document.uri.fsPath)) {
    await vscode.window.showInformationMessage(
      "Open a file that defines an agent first: Python, TypeScript or JavaScript, or a subagent in .claude/agents/.",
    );
    return;
  }
  if (!client?.isRunning()) {
    await vscode.window.showWarningMessage("Skill LSP: the server is not running.");
    return;
  }

  const converter = client.code2ProtocolConverter;
  let answer: unknown;
  try {
    answer = await client.sendRequest(ExecuteCommandRequest.type, {
      command: DISCLOSURE_COMMAND,
      arguments: [
        {
          uri: converter.asUri(editor.document.uri),
          position: converter.asPosition(editor.selection.active),
        },
      ],
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    client.error(`${DISCLOSURE_COMMAND} failed`, error);
    await vscode.window.showErrorMessage(`Skill LSP: could not get the disclosure: ${message}`);
    return;
  }
  if (!isDisclosure(answer)) {
    await vscode.window.showInformationMessage("No agent at the cursor");
    return;
  }

  const document = await vscode.workspace.openTextDocument(documents.put(answer.title, answer.text));
  await vscode.window.showTextDocument(document, {
    preview: true,
    viewColumn: vscode.ViewColumn.Beside,
  });
}
