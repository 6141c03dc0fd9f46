// Where "Show Agent Disclosure" is offered: the files that define agents
// (Python, TypeScript and JavaScript) and Claude subagent files
// (.claude/agents/*.md, and the user's own in subdirectories). The command
// palette's `when` clause in package.json is disclosureWhen(); a unit test
// keeps the two equal. No `vscode` import: the unit tests run in plain Node.

/** The language modes of the code files that define agents. */
export const AGENT_LANGUAGES = ["python", "typescript", "typescriptreact", "javascript", "javascriptreact"];

/** A subagent file: Markdown below a `.claude/agents` directory (either separator; a `/` escaped, as a
 * `when` clause's regular expression needs it). */
export const SUBAGENT_PATH = /(\/|\\)\.claude(\/|\\)agents(\/|\\).*\.md$/;

/** The `when` clause of the command palette entry. */
export function disclosureWhen(): string {
  const languages = AGENT_LANGUAGES.map((language) => `editorLangId == ${language}`);
  return [...languages, `resourcePath =~ ${SUBAGENT_PATH.toString()}`].join(" || ");
}

/** Whether a document defines agents the disclosure can be shown for. */
export function offersDisclosure(languageId: string, fsPath: string): boolean {
  return AGENT_LANGUAGES.includes(languageId) || SUBAGENT_PATH.test(fsPath);
}
