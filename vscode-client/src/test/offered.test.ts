// "Show Agent Disclosure" is offered in Python, TypeScript and JavaScript
// agents and in subagent files, and the command palette says the same.

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { disclosureWhen, offersDisclosure } from "../offered";

const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as {
  contributes: { menus: { commandPalette: { command: string; when: string }[] } };
};

test("the command palette's when clause is the one the extension checks", () => {
  const entry = manifest.contributes.menus.commandPalette.find((item) => item.command === "skillLsp.showDisclosure");
  assert.equal(entry?.when, disclosureWhen());
  assert.match(disclosureWhen(), /editorLangId == typescript \|\|/);
});

test("offered in agent code and subagent files, not in other Markdown", () => {
  assert.ok(offersDisclosure("python", "/p/agent.py"));
  assert.ok(offersDisclosure("typescript", "/p/desk.ts"));
  assert.ok(offersDisclosure("javascript", "/p/desk.mjs"));
  assert.ok(offersDisclosure("markdown", "/p/.claude/agents/returns-clerk.md"));
  assert.ok(offersDisclosure("markdown", "C:\\p\\.claude\\agents\\team\\nested.md"));
  assert.ok(!offersDisclosure("markdown", "/p/README.md"));
  assert.ok(!offersDisclosure("markdown", "/p/.claude/skills/refund-policy/SKILL.md"));
  assert.ok(!offersDisclosure("json", "/p/.claude/agents.json"));
});
