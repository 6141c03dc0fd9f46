// `skillLsp.showReferences`: the command of the server's "used by N agents"
// code lens on a SKILL.md. Its arguments are LSP JSON (a URI string, a
// position, locations); VS Code's peek view wants its own types.

import * as vscode from "vscode";

interface LspPosition {
  line: number;
  character: number;
}

interface LspLocation {
  uri: string;
  range: { start: LspPosition; end: LspPosition };
}

function isPosition(value: unknown): value is LspPosition {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { line, character } = value as Record<string, unknown>;
  return typeof line === "number" && typeof character === "number";
}

function isLocation(value: unknown): value is LspLocation {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { uri, range } = value as Record<string, unknown>;
  if (typeof uri !== "string" || typeof range !== "object" || range === null) {
    return false;
  }
  const { start, end } = range as Record<string, unknown>;
  return isPosition(start) && isPosition(end);
}

const asPosition = (position: LspPosition) => new vscode.Position(position.line, position.character);

export async function showReferences(uri: unknown, position: unknown, locations: unknown): Promise<void> {
  if (typeof uri !== "string" || !isPosition(position) || !Array.isArray(locations)) {
    return;
  }
  await vscode.commands.executeCommand(
    "editor.action.showReferences",
    vscode.Uri.parse(uri),
    asPosition(position),
    locations
      .filter(isLocation)
      .map(
        (location) =>
          new vscode.Location(
            vscode.Uri.parse(location.uri),
            new vscode.Range(asPosition(location.range.start), asPosition(location.range.end)),
          ),
      ),
  );
}
