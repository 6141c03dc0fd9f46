// Quick fixes that do the same thing once: two diagnostics on one name (SK108
// "Set name to 'x'" and SK109 "Change to 'x'", say) each bring a fix with the
// same edit, and VS Code would list both. Two actions are the same when their
// kind, edit and command are; the title is left out, as two wordings of one
// change are still one change. No VS Code API at run time, so the unit tests
// can call it.

import type * as vscode from "vscode";

type Action = vscode.CodeAction | vscode.Command;

/**
 * The actions in order, each distinct one once: the first of equals keeps its
 * place, taking the place of none but a later equal marked preferred.
 */
export function distinctActions<T extends Action>(actions: readonly T[]): T[] {
  const kept: T[] = [];
  const at = new Map<string, number>();
  for (const action of actions) {
    const key = actionKey(action);
    const index = at.get(key);
    if (index === undefined) {
      at.set(key, kept.length);
      kept.push(action);
    } else if (isPreferred(action) && !isPreferred(kept[index])) {
      kept[index] = action;
    }
  }
  return kept;
}

function isPreferred(action: Action | undefined): boolean {
  return (action as vscode.CodeAction | undefined)?.isPreferred === true;
}

let unique = 0;

function actionKey(action: Action): string {
  if (typeof (action as vscode.Command).command === "string") {
    return JSON.stringify(["command", commandKey(action as vscode.Command)]);
  }
  const codeAction = action as vscode.CodeAction;
  return JSON.stringify([
    "action",
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
