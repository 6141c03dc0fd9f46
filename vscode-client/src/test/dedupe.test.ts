// Unit tests of distinctActions with stand-ins for VS Code's classes (the
// module reads only their public fields and methods).

import { strict as assert } from "node:assert";
import { test } from "node:test";
import type * as vscode from "vscode";
import { distinctActions, labelText, withoutListed } from "../dedupe";

function range(line: number, start: number, end: number): vscode.Range {
  return { start: { line, character: start }, end: { line, character: end } } as vscode.Range;
}

function fix(title: string, newText: string, options: { fileOps?: boolean; diagnostic?: string } = {}): vscode.CodeAction {
  const entries: [vscode.Uri, vscode.TextEdit[]][] = [
    [{ toString: () => "file:///w/skills/a/SKILL.md" } as vscode.Uri, [{ range: range(1, 6, 9), newText } as vscode.TextEdit]],
  ];
  const edit = { entries: () => entries, size: entries.length + (options.fileOps ? 1 : 0) } as unknown as vscode.WorkspaceEdit;
  return {
    title,
    kind: { value: "quickfix" },
    edit,
    diagnostics: [{ code: options.diagnostic ?? "SK108" }],
  } as unknown as vscode.CodeAction;
}

test("the same fix brought by two diagnostics is listed once, whatever its wording", () => {
  const first = fix("Set name to 'a'", "a", { diagnostic: "SK108" });
  const second = fix("Change to 'a'", "a", { diagnostic: "SK109" });
  assert.deepEqual(distinctActions([first, second]), [first]);
});

test("of two equal fixes the preferred one is kept, in the first one's place", () => {
  const other = fix("Set name to 'b'", "b");
  const first = fix("Change to 'a'", "a", { diagnostic: "SK109" });
  const preferred = Object.assign(fix("Set name to 'a'", "a", { diagnostic: "SK108" }), { isPreferred: true });
  assert.deepEqual(distinctActions([first, other, preferred]), [preferred, other]);
});

test("fixes that differ in their edit are all kept, in order", () => {
  const actions = [fix("Set name to 'a'", "a"), fix("Set name to 'b'", "b"), fix("Set name to 'a'", "A")];
  assert.deepEqual(distinctActions(actions), actions);
});

test("an edit with file operations is never taken for another", () => {
  const actions = [fix("Create skill", "x", { fileOps: true }), fix("Create skill", "x", { fileOps: true })];
  assert.equal(distinctActions(actions).length, 2);
});

test("commands are compared by command and arguments", () => {
  const open = { title: "Open", command: "skillLsp.showReferences", arguments: ["file:///a"] };
  const other = { title: "Open", command: "skillLsp.showReferences", arguments: ["file:///b"] };
  assert.deepEqual(distinctActions([open, { ...open }, other]), [open, other]);
});

test("completion items another provider lists under the same label are left out", () => {
  const item = (label: string | { label: string; description?: string }) => ({ label }) as vscode.CompletionItem;
  const ours = [item("name"), item("description"), item({ label: "allowed-tools", description: "Claude Code" })];
  const theirs = [item({ label: "description", description: "VS Code" }), item("license")];
  assert.deepEqual(withoutListed(ours, theirs).map(labelText), ["name", "allowed-tools"]);
});
