// The LanguageClient: which documents go to the server, and the settings it is
// given at start (`initializationOptions`), on request (`workspace/configuration`)
// and on change (`workspace/didChangeConfiguration`): one object in all three,
// the `skillLsp` section without `server` and `trace`.

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  type DocumentSelector,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { distinctActions, withoutListed } from "./dedupe";
import type { Located } from "./python";

// The settings' namespace, spelt so that VS Code's Settings editor reads
// "Skill LSP" (it splits camelCase: `skillLsp` would read "Skill Lsp"); also
// the client id, so `skillLSP.trace.server` is the language client's trace.
export const CLIENT_ID = "skillLSP";
export const CLIENT_NAME = "Skill LSP";
const SETTINGS = CLIENT_ID;
/** The section the server asks for in `workspace/configuration` (and Neovim users set). */
const SECTION = "skillLsp";

export type Profile = "agentdeck" | "claude" | "spec";
export type SeverityName = "error" | "warning" | "information" | "hint" | "off";

export interface SkillRoot {
  path: string;
  profile?: Profile;
}

/** The `skillLsp` settings the server reads: everything but `server` and `trace`. */
export interface ServerSettings {
  validate: "onType" | "onSave";
  debounce: number;
  roots: SkillRoot[];
  /** Absent unless set: an empty list would select no rule at all. */
  select?: string[];
  ignore: string[];
  severity: Record<string, SeverityName>;
  userSkillsDir: string;
  userAgentsDir: string;
}

/**
 * SKILL.md whatever its language mode (VS Code's own `skill` language, or
 * Markdown, which this extension makes the default for SKILL.md: see the
 * README), Claude subagent files, and the code that declares agents: Python,
 * TypeScript and JavaScript, saved or not. The server ignores a file it has
 * nothing to say about.
 */
export const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: "file", pattern: "**/SKILL.md" },
  { scheme: "file", pattern: "**/skill.md" },
  { scheme: "file", language: "skill" },
  { scheme: "file", pattern: "**/.claude/agents/*.md" },
  // the user's own subagents (~/.claude/agents), which Claude Code also reads from subdirectories
  { scheme: "file", pattern: "**/.claude/agents/**/*.md" },
  ...["python", "typescript", "typescriptreact", "javascript", "javascriptreact"].flatMap((language) => [
    { scheme: "file", language },
    { scheme: "untitled", language },
  ]),
];

export function serverSettings(scope?: vscode.Uri): ServerSettings {
  const config = vscode.workspace.getConfiguration(SETTINGS, scope);
  // VS Code reports [] for an unset array setting; only a value the user set counts.
  const selected = config.inspect<string[]>("select");
  const select = selected?.workspaceFolderValue ?? selected?.workspaceValue ?? selected?.globalValue;
  return {
    validate: config.get<ServerSettings["validate"]>("validate", "onType"),
    debounce: config.get<number>("debounce", 300),
    roots: config.get<SkillRoot[]>("roots", []),
    ...(select ? { select } : {}),
    ignore: config.get<string[]>("ignore", []),
    severity: config.get<Record<string, SeverityName>>("severity", {}),
    userSkillsDir: config.get<string>("userSkillsDir", ""),
    userAgentsDir: config.get<string>("userAgentsDir", ""),
  };
}

/** True while the completion middleware asks the other providers (VS Code calls ours again then). */
let askingOthers = false;

export function createClient(
  server: Located,
  outputChannel: vscode.LogOutputChannel,
): LanguageClient {
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // No `transport`: with TransportKind.stdio the client would append a
  // `--stdio` argument the server does not need; stdio is the default anyway.
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    options: { cwd, env: process.env },
  };

  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel,
    traceOutputChannel: outputChannel,
    initializationOptions: () => serverSettings(),
    middleware: {
      // In VS Code's own `skill` language (when a user's files.associations
      // chooses it) VS Code completes the frontmatter keys too: list each once.
      provideCompletionItem: async (document, position, context, token, next) => {
        if (askingOthers) {
          // The nested request below, made to learn what the others list.
          return [];
        }
        const ours = await next(document, position, context, token);
        if (document.languageId !== "skill" || !ours) {
          return ours;
        }
        askingOthers = true;
        let theirs: vscode.CompletionList | undefined;
        try {
          theirs = await vscode.commands.executeCommand<vscode.CompletionList>(
            "vscode.executeCompletionItemProvider",
            document.uri,
            position,
            context.triggerCharacter,
          );
        } finally {
          askingOthers = false;
        }
        if (Array.isArray(ours)) {
          return withoutListed(ours, theirs.items);
        }
        return new vscode.CompletionList(withoutListed(ours.items, theirs.items), ours.isIncomplete);
      },
      // Two diagnostics on one spot may bring the same fix; list it once.
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        return actions ? distinctActions(actions) : actions;
      },
      workspace: {
        // Answer for `skillLsp` with the same object as initializationOptions,
        // scoped to the folder the server asks about.
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          return params.items.map((item, index): unknown => {
            if (item.section !== SECTION) {
              return answers[index];
            }
            return serverSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined);
          });
        },
      },
    },
  };

  return new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
}

/** Settings that decide which server runs, so a change restarts it instead. */
export function changesServer(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${SETTINGS}.server`);
}

/** Tells a running server that its settings changed, when they did. */
export async function notifySettingsChanged(
  client: LanguageClient,
  event: vscode.ConfigurationChangeEvent,
): Promise<void> {
  const keys: (keyof ServerSettings)[] = ["validate", "debounce", "roots", "select", "ignore", "severity", "userSkillsDir",
    "userAgentsDir"];
  if (!client.isRunning() || !keys.some((key) => event.affectsConfiguration(`${SETTINGS}.${key}`))) {
    return;
  }
  await client.sendNotification(DidChangeConfigurationNotification.type, {
    settings: { [SECTION]: serverSettings() },
  });
}
