// Quick fixes that do the same thing once: two diagnostics on one name (SK108
// and SK109, say) each bring "Set name to 'x'", and VS Code would list both.
// Two actions are the same when their title, kind, edit and command are.
// No VS Code API at run time, so the unit tests can call it.

import type * as vscode from "vscode";

type Action = vscode.CodeAction | vscode.Command;

/** The actions in order, each distinct one once (the first of equals is kept). */
export function distinctActions<T extends Action>(actions: readonly T[]): T[] {
  const seen = new Set<string>();
  return actions.filter((action) => {
    const key = actionKey(action);
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}

let unique = 0;

function actionKey(action: Action): string {
  if (typeof (action as vscode.Command).command === "string") {
    return JSON.stringify(["command", action.title, commandKey(action as vscode.Command)]);
  }
  const codeAction = action as vscode.CodeAction;
  return JSON.stringify([
    "action",
    codeAction.title,
    codeAction.kind?.value ?? "",
    codeAction.edit ? editKey(codeAction.edit) : null,
    codeAction.command ? commandKey(codeAction.command) : null,
    codeAction.disabled?.reason ?? null,
  ]);
}

function commandKey(command: vscode.Command): unknown {
  return [command.command, command.arguments ?? []];
}

function editKey(edit: vscode.WorkspaceEdit): unknown {
  const entries = edit.entries();
  if (entries.length !== edit.size) {
    // File operations (create, rename) are not in entries(): such an edit
    // cannot be compared, so it is never taken for another.
    unique += 1;
    return ["uncompared", unique];
  }
  return entries
    .map(([uri, edits]) => [
      uri.toString(),
      edits.map((one) => [
        one.range.start.line,
        one.range.start.character,
        one.range.end.line,
        one.range.end.character,
        one.newText,
      ]),
    ]);
}

/** The text a completion item is listed under. */
export function labelText(item: vscode.CompletionItem): string {
  return typeof item.label === "string" ? item.label : item.label.label;
}

/**
 * Our completion items less those another provider already lists under the
 * same label (VS Code's own `skill` language completes the frontmatter keys
 * too); theirs stay, so each key is listed once.
 */
export function withoutListed(ours: vscode.CompletionItem[], theirs: readonly vscode.CompletionItem[]): vscode.CompletionItem[] {
  const listed = new Set(theirs.map(labelText));
  return ours.filter((item) => !listed.has(labelText(item)));
}
