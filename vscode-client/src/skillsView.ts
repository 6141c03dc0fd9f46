// The Skills view (Explorer): roots → skills → the agents, sessions and
// subagents that list each skill, each runtime's load verdict, its size in
// each listing, the skills whose descriptions are alike its own, and its
// findings. Everything comes from the server's `skillLsp/skills` request (any
// client may ask it: see skill_lsp/server/skillsview.py), asked level by level
// as the tree is expanded; the server's `skillLsp/skillsChanged` notification,
// sent after each analysis, refreshes what is shown. Clicking an item opens its
// file at the place it names.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";

export const VIEW_ID = "skillLsp.skills";
export const REFRESH_COMMAND = "skillLsp.refreshSkills";
const REQUEST = "skillLsp/skills";
const CHANGED = "skillLsp/skillsChanged";
/** A root with more skills than this opens collapsed (its skills are asked only when it is opened). */
const EXPANDED_ROOT_SKILLS = 200;
/** Notifications closer together than this refresh the view once. */
const REFRESH_DELAY_MS = 150;

type Counts = Partial<Record<"error" | "warning" | "information" | "hint", number>>;

interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

interface RootAnswer {
  uri: string;
  label: string;
  origin: string | null;
  runtimes: string[];
  skills: number;
  counts: Counts;
  /** The listing a runtime makes of the whole root ("1 skill · 88 characters of 8,000"), or null. */
  listing: string | null;
  external: boolean;
}

interface SkillAnswer {
  uri: string;
  name: string;
  path: string;
  range: LspRange;
  counts: Counts;
  listedBy: number;
}

interface Lister {
  kind: "agent" | "session" | "subagent";
  name: string;
  runtime: string;
  uri: string;
  path: string;
  range: LspRange;
}

interface Verdict {
  runtime: string;
  loads: boolean;
  consequence: "altered" | "dropped" | null;
  does: string;
}

interface ListingAnswer {
  title: string;
  runtime: string;
  size: number;
  unit: string;
  cut: number;
  atRisk: boolean;
  leftOut: boolean;
  summary: string;
  uri?: string;
  path?: string;
  range?: LspRange;
}

interface AlikeAnswer {
  name: string;
  uri: string;
  path: string;
  range: LspRange;
  score: number;
  wording: string;
  choices: string[];
}

interface FindingAnswer {
  code: string;
  severity: keyof Counts;
  message: string;
  range: LspRange;
}

interface SkillDetails extends Omit<SkillAnswer, "listedBy"> {
  description: string | null;
  verdicts: Verdict[];
  listedBy: Lister[];
  listings: ListingAnswer[];
  alike: AlikeAnswer[];
  findings: FindingAnswer[];
}

type Node =
  | { kind: "root"; root: RootAnswer }
  | { kind: "skill"; skill: SkillAnswer }
  | { kind: "lister"; lister: Lister }
  | { kind: "verdict"; verdict: Verdict; skill: SkillAnswer }
  | { kind: "listing"; listing: ListingAnswer }
  | { kind: "alike"; alike: AlikeAnswer }
  | { kind: "finding"; finding: FindingAnswer; skill: SkillAnswer };

const LISTER_ICONS: Record<Lister["kind"], string> = { agent: "hubot", session: "comment-discussion", subagent: "organization" };
const SEVERITY_ICONS: Record<keyof Counts, [string, string]> = {
  error: ["error", "problemsErrorIcon.foreground"],
  warning: ["warning", "problemsWarningIcon.foreground"],
  information: ["info", "problemsInfoIcon.foreground"],
  hint: ["lightbulb", "problemsInfoIcon.foreground"],
};

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

/** "1 error, 2 warnings", most severe first; "" for none. */
export function countsText(counts: Counts): string {
  const parts: string[] = [];
  for (const [severity, one] of [["error", "error"], ["warning", "warning"], ["information", "info"], ["hint", "hint"]] as const) {
    const count = counts[severity] ?? 0;
    if (count) {
      parts.push(plural(count, one));
    }
  }
  return parts.join(", ");
}

function worst(counts: Counts): keyof Counts | undefined {
  return (["error", "warning", "information", "hint"] as const).find((severity) => (counts[severity] ?? 0) > 0);
}

function severityIcon(severity: keyof Counts): vscode.ThemeIcon {
  const [icon, color] = SEVERITY_ICONS[severity];
  return new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
}

export class SkillsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly listeners: vscode.Disposable[] = [];
  private refreshTimer: NodeJS.Timeout | undefined;
  /** The details of each skill shown, asked once per refresh for its children and tooltip. */
  private details = new Map<string, Promise<SkillDetails | null>>();
  private readonly view: vscode.TreeView<Node>;

  /** Registers the view and its refresh command; `attach` each client as it starts. */
  constructor(private readonly client: () => LanguageClient | undefined) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.listeners.push(this.view, vscode.commands.registerCommand(REFRESH_COMMAND, () => { this.refresh(); }));
  }

  /** Listens to a client that has just started (a restart makes a new one). */
  attach(client: LanguageClient): void {
    this.listeners.push(client.onNotification(CHANGED, () => { this.refreshSoon(); }));
    this.refresh();
  }

  refresh(): void {
    this.details.clear();
    this.changed.fire(undefined);
  }

  private refreshSoon(): void {
    if (this.refreshTimer) {
      clearTimeout(this.refreshTimer);
    }
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.refresh();
    }, REFRESH_DELAY_MS);
  }

  private async ask<T>(params: Record<string, string>): Promise<T | undefined> {
    const client = this.client();
    if (!client?.isRunning()) {
      this.say("The Skill LSP server is not running.");
      return undefined;
    }
    try {
      return await client.sendRequest<T>(REQUEST, params);
    } catch (error) {
      client.error(`${REQUEST} failed`, error);
      this.say(`The server could not list the skills: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  private say(message: string | undefined): void {
    this.view.message = message;
  }

  private skillDetails(skill: SkillAnswer): Promise<SkillDetails | null> {
    let known = this.details.get(skill.uri);
    if (!known) {
      known = this.ask<SkillDetails | null>({ skill: skill.uri }).then((answer) => answer ?? null);
      this.details.set(skill.uri, known);
    }
    return known;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      const answer = await this.ask<{ roots: RootAnswer[]; indexing: boolean }>({});
      if (!answer) {
        return [];
      }
      this.say(answer.indexing ? "Indexing the workspace…" : answer.roots.length ? undefined : "No skills in this workspace.");
      return answer.roots.map((root) => ({ kind: "root", root }));
    }
    if (node.kind === "root") {
      const answer = await this.ask<{ skills: SkillAnswer[] }>({ root: node.root.uri });
      return (answer?.skills ?? []).map((skill) => ({ kind: "skill", skill }));
    }
    if (node.kind === "skill") {
      const details = await this.skillDetails(node.skill);
      if (!details) {
        return [];
      }
      const skill = node.skill;
      return [
        ...details.listedBy.map((lister): Node => ({ kind: "lister", lister })),
        ...details.verdicts.map((verdict): Node => ({ kind: "verdict", verdict, skill })),
        ...details.listings.map((listing): Node => ({ kind: "listing", listing })),
        ...details.alike.map((alike): Node => ({ kind: "alike", alike })),
        ...details.findings.map((finding): Node => ({ kind: "finding", finding, skill })),
      ];
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case "root":
        return this.rootItem(node.root);
      case "skill":
        return this.skillItem(node.skill);
      case "lister": {
        const { lister } = node;
        const item = new vscode.TreeItem(lister.name, vscode.TreeItemCollapsibleState.None);
        item.description = `${lister.kind} · ${lister.runtime} · ${lister.path}`;
        item.tooltip = `Listed by the ${lister.kind} ${lister.name} (${lister.runtime}) in ${lister.path}`;
        item.iconPath = new vscode.ThemeIcon(LISTER_ICONS[lister.kind]);
        item.command = this.open(lister.uri, lister.range, `Open ${lister.path}`);
        item.contextValue = "skillLsp.lister";
        return item;
      }
      case "verdict": {
        const { verdict } = node;
        const item = new vscode.TreeItem(`${verdict.runtime}: ${verdict.does}`, vscode.TreeItemCollapsibleState.None);
        item.iconPath = verdict.consequence === null
          ? new vscode.ThemeIcon("pass", new vscode.ThemeColor("testing.iconPassed"))
          : severityIcon(verdict.consequence === "dropped" ? "error" : "warning");
        item.tooltip = `Load verdict of ${verdict.runtime}: ${verdict.does}`;
        item.command = this.open(node.skill.uri, node.skill.range, `Open ${node.skill.path}`);
        item.contextValue = "skillLsp.verdict";
        return item;
      }
      case "listing": {
        const { listing } = node;
        const item = new vscode.TreeItem(`${plural(listing.size, listing.unit.replace(/s$/, ""))} in ${listing.title}`,
          vscode.TreeItemCollapsibleState.None);
        const state = listing.leftOut ? "left out" : listing.atRisk ? "description at risk" : "";
        item.description = [state, listing.cut ? `${plural(listing.cut, "character")} cut` : "", listing.summary]
          .filter(Boolean).join(" · ");
        item.tooltip = `${listing.runtime}: ${listing.title} — ${listing.summary}`;
        item.iconPath = listing.leftOut || listing.atRisk ? severityIcon("warning") : new vscode.ThemeIcon("list-unordered");
        if (listing.uri && listing.range) {
          item.command = this.open(listing.uri, listing.range, `Open ${listing.path ?? listing.uri}`);
        }
        item.contextValue = "skillLsp.listing";
        return item;
      }
      case "alike": {
        const { alike } = node;
        const item = new vscode.TreeItem(`alike ${alike.name}`, vscode.TreeItemCollapsibleState.None);
        item.description = `${Math.round(alike.score * 100)} % · both say ${alike.wording}`;
        item.tooltip = `The descriptions of the two are so alike that the model may not tell which applies, in ${alike.choices.join("; ")}`;
        item.iconPath = severityIcon("information");
        item.command = this.open(alike.uri, alike.range, `Open ${alike.path}`);
        item.contextValue = "skillLsp.alike";
        return item;
      }
      case "finding": {
        const { finding } = node;
        const item = new vscode.TreeItem(`${finding.code} ${finding.message}`, vscode.TreeItemCollapsibleState.None);
        item.iconPath = severityIcon(finding.severity);
        item.tooltip = `${finding.code} [${finding.severity}] ${finding.message}`;
        item.command = this.open(node.skill.uri, finding.range, `Open ${node.skill.path}`);
        item.contextValue = "skillLsp.finding";
        return item;
      }
    }
  }

  private rootItem(root: RootAnswer): vscode.TreeItem {
    const item = new vscode.TreeItem(
      root.label,
      root.skills <= EXPANDED_ROOT_SKILLS ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = `root:${root.uri}`;
    const problems = countsText(root.counts);
    item.description = [root.runtimes.join(", "), root.listing ?? plural(root.skills, "skill"), problems].filter(Boolean).join(" · ");
    item.tooltip = `${root.label}: read by ${root.runtimes.join(", ") || "no runtime"}${problems ? ` (${problems})` : ""}`;
    item.iconPath = new vscode.ThemeIcon("library");
    item.resourceUri = vscode.Uri.parse(root.uri);
    item.contextValue = "skillLsp.root";
    return item;
  }

  private skillItem(skill: SkillAnswer): vscode.TreeItem {
    const item = new vscode.TreeItem(skill.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `skill:${skill.uri}`;
    const problems = countsText(skill.counts);
    item.description = [skill.listedBy ? `listed by ${skill.listedBy}` : "listed by none", problems].filter(Boolean).join(" · ");
    item.tooltip = skill.path;
    const severity = worst(skill.counts);
    item.iconPath = severity ? severityIcon(severity) : new vscode.ThemeIcon("book");
    item.command = this.open(skill.uri, skill.range, `Open ${skill.path}`);
    item.contextValue = "skillLsp.skill";
    return item;
  }

  async resolveTreeItem(item: vscode.TreeItem, node: Node): Promise<vscode.TreeItem> {
    if (node.kind === "skill") {
      const details = await this.skillDetails(node.skill);
      if (details) {
        const lines = [`**${details.name}** · \`${details.path}\``];
        if (details.description) {
          lines.push(details.description);
        }
        lines.push(...details.verdicts.map((verdict) => `- ${verdict.runtime}: ${verdict.does}`));
        item.tooltip = new vscode.MarkdownString(lines.join("\n\n"));
      }
    }
    return item;
  }

  private open(uri: string, range: LspRange, title: string): vscode.Command {
    const selection = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
    return { command: "vscode.open", title, arguments: [vscode.Uri.parse(uri), { selection, preview: true }] };
  }

  dispose(): void {
    if (this.refreshTimer) {
      clearTimeout(this.refreshTimer);
    }
    for (const listener of this.listeners) {
      listener.dispose();
    }
    this.changed.dispose();
  }
}
