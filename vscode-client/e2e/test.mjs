// Drives code-server (started by e2e/run, with the extension installed) from
// Debian's Chromium. Everything is done the way a person would: the command
// palette (F1), quick open, the keyboard; assertions read what the workbench
// shows. Each step leaves a screenshot in $E2E_SCREENSHOTS.

import { copyFile, readFile } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";

const url = requireEnv("E2E_URL");
const workspace = requireEnv("E2E_WORKSPACE");
const screenshots = requireEnv("E2E_SCREENSHOTS");
const smoke = process.env.E2E_SMOKE === "1";
// Set when e2e/run was given SKILL_LSP_SERVER; otherwise the bundled server must run.
const configuredServer = process.env.E2E_SERVER ?? "";
// The second run of e2e/run: an untrusted workspace whose .venv and server path setting are traps.
const restricted = process.env.E2E_RESTRICTED === "1";

const SERVER_TIMEOUT_MS = 60_000;
const UI_TIMEOUT_MS = 20_000;
const AGENT_FILE = ".agentdeck/agents/booking/agent.py";
const BROKEN_SKILL = ".agentdeck/skills/broken/SKILL.md";
const ENTRY = "- parse-request: Extract pickup, dropoff, and date from a free-text booking request.";

function requireEnv(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set; run this through e2e/run`);
  }
  return value;
}

/** Text as a person reads it: Monaco renders spaces as U+00A0. */
function normalize(text) {
  return text.replace(/\u00a0/g, " ");
}

/** Whitespace runs as one space, so soft-wrapped editor lines still match. */
function collapse(text) {
  return normalize(text).replace(/\s+/g, " ");
}

/** Calls `probe` until it returns a truthy value or `timeoutMs` passes. */
async function poll(what, probe, timeoutMs = UI_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last) {
        return last;
      }
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what} (last: ${detail})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

class Workbench {
  constructor(page) {
    this.page = page;
    this.shot = 0;
  }

  async screenshot(name) {
    this.shot += 1;
    const file = path.join(screenshots, `${String(this.shot).padStart(2, "0")}-${name}.png`);
    await this.page.screenshot({ path: file });
    console.log(`  screenshot ${path.basename(file)}`);
    return file;
  }

  get quickInput() {
    return this.page.locator(".quick-input-widget");
  }

  /** Opens the quick input with `value` typed in (">" for commands, ":" for lines). */
  async quickOpen(value) {
    await this.page.keyboard.press("Escape");
    await this.page.keyboard.press("F1");
    const input = this.quickInput.locator("input").first();
    await input.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    await input.fill(value);
    return input;
  }

  /** Runs a command by its palette label (exact match on the label). */
  async command(label) {
    const row = this.quickInput
      .locator(".monaco-list-row")
      .filter({ has: this.page.locator(".label-name", { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) })
      .first();
    // Commands appear as their extensions register them: reopen until listed.
    await poll(`"${label}" in the command palette`, async () => {
      await this.quickOpen(`>${label}`);
      try {
        await row.waitFor({ state: "visible", timeout: 3_000 });
        return true;
      } catch {
        return false;
      }
    });
    await row.click();
    await this.quickInput.waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
  }

  /** Opens a workspace file through quick open, by its relative path. */
  async openFile(relativePath) {
    await this.quickOpen(relativePath);
    const name = path.basename(relativePath);
    const dir = path.dirname(relativePath);
    const row = this.quickInput
      .locator(".monaco-list-row")
      .filter({ hasText: name })
      .filter({ hasText: dir })
      .first();
    await row.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    await row.click();
    await this.quickInput.waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
    await poll(`the editor tab of ${relativePath}`, async () =>
      (await this.activeTabTitle()) === name,
    );
  }

  /** Moves the cursor to a 1-based line and column with "Go to Line/Column". */
  async goTo(line, column) {
    const input = await this.quickOpen(`:${line}:${column}`);
    await input.press("Enter");
    await this.quickInput.waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
  }

  async activeTabTitle() {
    const tab = this.page.locator(".editor-group-container.active .tab.active").first();
    return (await tab.count()) ? ((await tab.getAttribute("data-resource-name")) ?? "") : "";
  }

  /** The visible text of the active editor. */
  async editorText() {
    const lines = this.page.locator(".editor-group-container.active .monaco-editor .view-lines").first();
    return normalize(await lines.innerText());
  }

  /** Types into the filter box of the panel's visible view (Output, Problems). */
  async setPanelFilter(text) {
    // fill(), not select-all and typing: should the click not move the focus,
    // the keys would go to the editor and wipe the file.
    const input = this.page.locator(".panel .viewpane-filter input").filter({ visible: true }).first();
    await input.fill(text);
  }

  async problemsText() {
    const panel = this.page.locator(".markers-panel").first();
    return (await panel.count()) ? normalize(await panel.innerText()) : "";
  }
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** 1-based line and column of the first `needle` in `text`, plus `offset` columns. */
function positionOf(text, needle, offset = 0) {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const column = lines[i].indexOf(needle);
    if (column >= 0) {
      return { line: i + 1, column: column + 1 + offset };
    }
  }
  throw new Error(`${needle} is not in the fixture`);
}

const steps = [];
async function step(name, body) {
  const started = Date.now();
  console.log(`- ${name}`);
  await body();
  steps.push(name);
  console.log(`  ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
const workbench = new Workbench(page);
let failed = false;

/** In the open SKILL.md: a new frontmatter line, "d", completion; each label must be listed once. */
async function completionListsEachOnce(shot) {
  await workbench.goTo(2, 13);
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("d");
  await page.keyboard.press("Control+Space");
  const labels = page.locator(".editor-widget.suggest-widget.visible .monaco-list-row .label-name");
  const names = await poll("the completion list", async () => {
    const texts = (await labels.allInnerTexts()).map((text) => normalize(text).trim());
    return texts.includes("description") && texts;
  }, SERVER_TIMEOUT_MS);
  await workbench.screenshot(shot);
  const twice = names.filter((name, index) => names.indexOf(name) !== index);
  if (twice.length) {
    throw new Error(`completion lists ${JSON.stringify(twice)} more than once: ${JSON.stringify(names)}`);
  }
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+Z");
  await page.keyboard.press("Control+Z");
  await poll("the SKILL.md back to its saved text", async () =>
    !collapse(await workbench.editorText()).includes("broken d"),
  );
}

/** The Skills view: the fixture's roots and skills, a skill's listers and verdicts, and clicks that open files. */
async function skillsView() {
  await workbench.command("Explorer: Focus on Skills View");
  // Room for the view: the folder's own tree folded, the side bar widened (its sash dragged).
  const folders = page.locator(".explorer-viewlet .pane-header").first();
  if ((await folders.getAttribute("aria-expanded")) === "true") {
    await folders.click();
  }
  const sidebar = await page.locator(".part.sidebar").first().boundingBox();
  if (sidebar && sidebar.width < 500) {
    const y = sidebar.y + sidebar.height / 2;
    await page.mouse.move(sidebar.x + sidebar.width + 1, y);
    await page.mouse.down();
    await page.mouse.move(sidebar.x + 560, y, { steps: 5 });
    await page.mouse.up();
  }
  const pane = page.locator(".pane", { has: page.locator(".pane-header", { hasText: /^Skills/ }) }).first();
  const rows = pane.locator(".monaco-list-row");
  // Each row as "label description" (the two are spans side by side).
  const rowTexts = async () =>
    (await rows.evaluateAll((elements) => elements.map((element) =>
      `${element.querySelector(".label-name")?.textContent ?? ""} ${element.querySelector(".label-description")?.textContent ?? ""}`,
    ))).map((text) => collapse(text).trim());
  // The roots open by themselves; the server answers once its first index is done.
  // (AgentDeck lists a skill by its frontmatter name: fare-rules/ is Fare_Rules)
  const skills = ["Fare_Rules", "broken", "parse-request", "quote-fare", "refund-policy"];
  await poll("the fixture's roots and skills in the Skills view", async () => {
    const texts = await rowTexts();
    return (
      texts.some((text) => text.startsWith(".agentdeck/skills AgentDeck · 4 skills")) &&
      texts.some((text) => text.startsWith(".claude/skills Claude Code, VS Code Copilot · 1 skill")) &&
      skills.every((name) => texts.some((text) => text.startsWith(`${name} `)))
    );
  }, SERVER_TIMEOUT_MS);
  const row = (label) =>
    rows.filter({ has: page.locator(".label-name", { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) }).first();
  // A skill opens on its twistie: its listers, each runtime's verdict, its listings and its findings.
  for (const name of ["parse-request", "refund-policy", "broken"]) {
    await row(name).locator(".monaco-tl-twistie").click();
  }
  await poll("the listers, verdicts, listings and findings of the skills opened", async () => {
    const texts = await rowTexts();
    return (
      texts.some((text) => text.startsWith("Booking agent · AgentDeck · .agentdeck/agents/booking/agent.py")) &&
      texts.some((text) => text.startsWith("AgentDeck: loads it")) &&
      texts.some((text) => text.startsWith("refunds subagent · Claude Code · .claude/agents/refunds.md")) &&
      texts.some((text) => text.startsWith("support session · Claude Agent SDK · support.py")) &&
      // each listing a skill is an entry of, with its size: the agent's block, Claude Code's listing of the project
      texts.some((text) => /^\d+ characters in agent Booking /.test(text)) &&
      texts.some((text) => /^\d+ characters in Claude Code in workspace \(\.claude\/skills\) /.test(text)) &&
      texts.some((text) => text.startsWith("SK106 ")) &&
      texts.some((text) => /^AgentDeck: .*SK106/.test(text))
    );
  }, SERVER_TIMEOUT_MS);
  // A click on a skill opens its SKILL.md; on a lister, the file that lists it.
  await row("parse-request").click();
  await poll("parse-request's SKILL.md in the editor", async () =>
    (await workbench.activeTabTitle()) === "SKILL.md" &&
    collapse(await workbench.editorText()).includes("Extract pickup, dropoff, and date"),
  );
  // (the mouse off the rows: a row's tooltip would cover the shot)
  const blank = await pane.boundingBox();
  const rest = () => page.mouse.move(blank.x + 40, blank.y + blank.height - 20);
  await rest();
  const file = await workbench.screenshot("skills-view");
  await copyFile(file, path.join(screenshots, "skills.png"));
  await row("refunds").click();
  await poll("the refunds subagent in the editor", async () =>
    (await workbench.activeTabTitle()) === "refunds.md" &&
    collapse(await workbench.editorText()).includes("You answer refund questions"),
  );
  await rest();
  await workbench.screenshot("skills-view-subagent");
  await workbench.command("View: Close All Editors");
  // The workbench as the next steps expect it: the side bar as wide as before, the folder's tree open.
  if (sidebar && sidebar.width < 500) {
    const now = await page.locator(".part.sidebar").first().boundingBox();
    const y = now.y + now.height / 2;
    await page.mouse.move(now.x + now.width + 1, y);
    await page.mouse.down();
    await page.mouse.move(sidebar.x + sidebar.width, y, { steps: 5 });
    await page.mouse.up();
  }
  if ((await folders.getAttribute("aria-expanded")) === "false") {
    await folders.click();
  }
  await page.mouse.move(0, 0);
}

async function restrictedMode() {
  // Its screenshots follow the first run's.
  workbench.shot = 20;
  await step("an untrusted workspace opens in Restricted Mode", async () => {
    await page.goto(`${url}?folder=${encodeURIComponent(workspace)}`);
    // code-server opens an untrusted folder in Restricted Mode; VS Code asks first.
    const no = page.locator(".monaco-dialog-box .monaco-button", { hasText: /No, I don.t trust/ }).first();
    await poll("Restricted Mode in the status bar", async () => {
      if (await no.isVisible()) {
        await no.click();
      }
      return (await page.locator(".statusbar").innerText()).includes("Restricted Mode");
    }, 60_000);
    await workbench.screenshot("restricted-mode");
  });

  await step("the server runs with the system python3, nothing of the workspace", async () => {
    await workbench.command("Skill LSP: Show Output");
    await workbench.setPanelFilter("");
    await poll("the Restricted Mode choice in the Skill LSP output", async () => {
      const text = normalize(await page.locator(".panel .monaco-editor .view-lines").first().innerText()).replace(/\n/g, "");
      return (
        text.includes("Restricted Mode: the server is taken from user settings or a Python on PATH outside the workspace; workspace settings of skillLSP.server.* are not used") &&
        // VS Code does not even show the extension the workspace's server path (a restricted setting).
        text.includes("Looked at skillLSP.server.path: not set") &&
        text.includes("Looked at the Python extension's interpreter and the workspace's .venv: skipped in Restricted Mode") &&
        /Starting the server \(python3 on PATH\): \/usr\/bin\/python3 -I /.test(text)
      );
    }, SERVER_TIMEOUT_MS);
    await workbench.screenshot("restricted-output");
  });

  await step("diagnostics still work in Restricted Mode", async () => {
    await workbench.openFile(BROKEN_SKILL);
    await workbench.command("View: Focus Problems (Errors, Warnings, Infos)");
    await workbench.setPanelFilter("");
    await poll("SK106 in the Problems panel", async () => /SK106/.test(await workbench.problemsText()), SERVER_TIMEOUT_MS);
    await workbench.screenshot("restricted-problems");
  });
}

async function fullRun() {
  await step("the workbench opens the fixture workspace", async () => {
    await page.goto(`${url}?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 60_000 });
    await poll("the explorer to list .agentdeck", async () =>
      (await page.locator(".explorer-folders-view").innerText()).includes(".agentdeck"),
      60_000,
    );
    await workbench.screenshot("workbench");
  });

  await step("the extension is installed", async () => {
    await workbench.command("Extensions: Show Installed Extensions");
    await poll("Skill LSP in the installed extensions", async () =>
      (await page.locator(".extensions-viewlet").innerText()).includes("Skill LSP"),
    );
    await workbench.screenshot("extension-installed");
    await workbench.command("View: Show Explorer");
  });

  await step("the settings read Skill LSP, the server path first", async () => {
    await workbench.command("Preferences: Open Settings (UI)");
    await page.getByText("Commonly Used").first().waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    await page.locator(".settings-header .suggest-input-container").first().click();
    await page.keyboard.type("@ext:skill-lsp.skill-lsp");
    const labels = await poll("the extension's settings", async () => {
      const rows = page.locator(".setting-item-contents .setting-item-title");
      const texts = (await rows.allInnerTexts()).map((text) => collapse(text).trim());
      return texts.length >= 5 && texts.every((text) => text.startsWith("Skill")) && texts;
    });
    await workbench.screenshot("settings");
    if (labels[0] !== "Skill LSP › Server: Path" || !labels.every((label) => label.startsWith("Skill LSP"))) {
      throw new Error(`expected "Skill LSP › Server: Path" first, every label under "Skill LSP", got ${JSON.stringify(labels)}`);
    }
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    await poll("the settings editor to close", async () => !(await page.getByText("Commonly Used").first().isVisible()));
  });

  await step("the extension activates and logs how it found the server", async () => {
    await workbench.command("Skill LSP: Show Output");
    // Only the visible lines render: filter the output down to the ones sought.
    const outputText = async () => normalize(await page.locator(".panel .monaco-editor .view-lines").first().innerText());
    const expected = smoke
      ? /Starting the server|No way to run the server/
      : configuredServer
        ? /Starting the server \(skillLsp\.server\.path \(user settings\)\)/
        : /Starting the server \(python3 on PATH\): \/usr\/bin\/python3 -I \S+bundled\/tool\/launch\.py/;
    await workbench.setPanelFilter(smoke ? "server" : "Starting the server");
    const output = await poll("the Skill LSP output", async () => {
      // Soft-wrapped lines are joined back (a path may be cut anywhere).
      const text = (await outputText()).replace(/\n/g, "");
      return expected.test(text) && text;
    }, SERVER_TIMEOUT_MS);
    if (!smoke && !configuredServer) {
      // Every place looked at is in the log, up to the one that worked.
      await workbench.setPanelFilter("Looked at");
      await poll("the places looked at in the Skill LSP output", async () => {
        const text = (await outputText()).replace(/\n/g, "");
        return (
          text.includes("Looked at skillLSP.server.path: not set") &&
          text.includes("Looked at the Python extension's interpreter:") &&
          text.includes("Looked at the workspace's .venv: no ") &&
          /Looked at python3 on PATH: \/usr\/bin\/python3 \(Python 3\.\d+\.\d+\) runs the bundled server/.test(text)
        );
      });
    }
    await workbench.screenshot("extension-output");
    await workbench.setPanelFilter("");

    if (output.includes("No way to run the server")) {
      // Without a server the extension must say so, with a way forward.
      await workbench.command("Notifications: Show Notifications");
      const notification = page.locator(".notifications-center .notification-list-item", { hasText: "Skill LSP:" }).first();
      await notification.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
      for (const button of ["Show Output", "Open Settings"]) {
        await notification.locator(".monaco-button", { hasText: button }).first().waitFor({ timeout: UI_TIMEOUT_MS });
      }
      await workbench.screenshot("no-server-notification");
    }
  });

  if (!smoke) {
    const agentSource = await readFile(path.join(workspace, AGENT_FILE), "utf8");

    await step("the Skills view shows the roots and skills, and a click opens the file", async () => {
      await skillsView();
    });

    await step("a SKILL.md without description shows SK106 in Problems, once", async () => {
      await workbench.openFile(BROKEN_SKILL);
      // VS Code's own `skill` language would add its unlabelled "Skill should
      // provide a description." beside SK106; the extension opens SKILL.md as
      // Markdown by default (configurationDefaults), so there is one problem.
      await poll("the Markdown language mode for SKILL.md", async () =>
        normalize(await page.locator('.statusbar-item[id="status.editor.mode"]').innerText()).trim() === "Markdown",
      );
      await workbench.command("View: Focus Problems (Errors, Warnings, Infos)");
      // The panel's views share one filter history: start from an empty one.
      await workbench.setPanelFilter("");
      await poll("SK106 in the Problems panel", async () =>
        /SK106/.test(await workbench.problemsText()) && /description/i.test(await workbench.problemsText()),
        SERVER_TIMEOUT_MS,
      );
      // VS Code validates 200 ms after a model opens; give it ample time to add a duplicate.
      await page.waitForTimeout(3_000);
      const rows = await page.locator(".markers-panel .monaco-list-row").allInnerTexts();
      const about = rows.map(collapse).filter((row) => /description/i.test(row));
      if (about.length !== 1) {
        throw new Error(`expected one problem about the description, got ${about.length}: ${JSON.stringify(about)}`);
      }
      await workbench.screenshot("skill-problems");

      // The default matters: in VS Code's own `skill` language the same file
      // gets VS Code's unlabelled warning too. Switch the mode and back.
      const setMode = async (label) => {
        // The language picker opens in the palette's own widget, so not through command().
        await workbench.quickOpen(">Change Language Mode");
        await workbench.quickInput
          .locator(".monaco-list-row")
          .filter({ has: page.locator(".label-name", { hasText: /^Change Language Mode$/ }) })
          .first()
          .click();
        const row = workbench.quickInput
          .locator(".monaco-list-row")
          .filter({ has: page.locator(".label-name", { hasText: new RegExp(`^${label}$`) }) })
          .first();
        const picker = page.getByPlaceholder("Select Language Mode");
        await picker.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
        await picker.fill(label);
        await row.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
        await row.click();
        await poll(`the ${label} language mode`, async () =>
          normalize(await page.locator('.statusbar-item[id="status.editor.mode"]').innerText()).trim() === label,
        );
      };
      const aboutDescription = async () =>
        (await page.locator(".markers-panel .monaco-list-row").allInnerTexts()).map(collapse).filter((row) => /description/i.test(row));
      await setMode("Skill");
      await poll("VS Code's own description problem beside SK106", async () => (await aboutDescription()).length === 2);
      await workbench.screenshot("skill-language-duplicates");
      // There VS Code completes the keys too; the extension leaves out its own duplicates.
      await completionListsEachOnce("skill-language-completion");
      await setMode("Markdown");
      await poll("one description problem again", async () => (await aboutDescription()).length === 1);
    });

    await step("frontmatter completion lists each key once", async () => {
      await workbench.openFile(BROKEN_SKILL);
      await completionListsEachOnce("completion");
    });

    await step("an unknown skill in Agent(skills=[...]) is marked AD101", async () => {
      await workbench.openFile(AGENT_FILE);
      await poll("AD101 in the Problems panel", async () =>
        /AD101/.test(await workbench.problemsText()), SERVER_TIMEOUT_MS);
      await poll("an error squiggle in agent.py", async () =>
        (await page.locator(".editor-group-container.active .monaco-editor .squiggly-error").count()) > 0,
      );
      const file = await workbench.screenshot("agent-diagnostics");
      await copyFile(file, path.join(screenshots, "problems.png"));
    });

    await step("hovering a skill name shows its disclosure entry", async () => {
      const at = positionOf(agentSource, '"parse-request"', 3);
      await workbench.goTo(at.line, at.column);
      await workbench.command("Show or Focus Hover");
      const hover = page.locator(".monaco-hover:not(.hidden)").first();
      await poll("the disclosure entry in the hover", async () => {
        if (!(await hover.isVisible())) {
          return false;
        }
        const text = collapse(await hover.innerText());
        // A Markdown list item renders without its "- ": accept that too.
        const items = await hover.locator("li").allInnerTexts();
        return text.includes(ENTRY) || items.map(collapse).includes(ENTRY.slice(2));
      }, SERVER_TIMEOUT_MS);
      const file = await workbench.screenshot("hover");
      await copyFile(file, path.join(screenshots, "hover.png"));
      await page.keyboard.press("Escape");
    });

    await step("Show Agent Disclosure opens the agent's disclosure text", async () => {
      const at = positionOf(agentSource, "Agent(", 1);
      await workbench.goTo(at.line, at.column);
      await workbench.command("Skill LSP: Show Agent Disclosure");
      await poll("the disclosure document", async () => {
        const text = collapse(await workbench.editorText());
        return text.includes("### Skills available") && text.includes(ENTRY);
      }, SERVER_TIMEOUT_MS);
      await workbench.screenshot("disclosure");
      await workbench.command("View: Close Editor");
      await workbench.openFile(AGENT_FILE);
    });

    await step("the SKILL.md code lens peeks at the agents using the skill", async () => {
      await workbench.openFile(".agentdeck/skills/parse-request/SKILL.md");
      const lens = page.locator(".editor-group-container.active .codelens-decoration a", { hasText: "used by 1 agent" }).first();
      await lens.waitFor({ state: "visible", timeout: SERVER_TIMEOUT_MS });
      await lens.click();
      const peek = page.locator(".editor-group-container.active .peekview-widget").first();
      await poll("the references peek listing agent.py", async () =>
        (await peek.isVisible()) && normalize(await peek.innerText()).includes("agent.py"),
      );
      await workbench.screenshot("code-lens-references");
      await page.keyboard.press("Escape");
      await workbench.openFile(AGENT_FILE);
    });

    await step("two diagnostics on one name offer their common fix once", async () => {
      // Fare_Rules is both not the directory's name (SK108) and not a valid name (SK109).
      await workbench.openFile(".agentdeck/skills/fare-rules/SKILL.md");
      await poll("SK108 and SK109 in the Problems panel", async () => {
        const text = await workbench.problemsText();
        return /SK108/.test(text) && /SK109/.test(text);
      }, SERVER_TIMEOUT_MS);
      await workbench.goTo(2, 9);
      await workbench.command("Quick Fix...");
      const rows = page.locator(".action-widget .monaco-list-row");
      const titles = await poll("the quick fixes of the name", async () => {
        const texts = (await rows.allInnerTexts()).map((text) => collapse(text).trim());
        return texts.some((text) => text.includes("fare-rules")) && texts;
      }, SERVER_TIMEOUT_MS);
      await workbench.screenshot("quick-fix-once");
      // SK108's "Set name to 'fare-rules'" and SK109's "Change to 'fare-rules'" make one edit.
      const renames = titles.filter((title) => title.includes("'fare-rules'"));
      if (renames.length !== 1) {
        throw new Error(`expected one fix renaming to 'fare-rules', got ${JSON.stringify(titles)}`);
      }
      await page.keyboard.press("Escape");
      await workbench.openFile(AGENT_FILE);
    });

    await step("the quick fix replaces the unknown name", async () => {
      const at = positionOf(agentSource, '"quote-fair"', 3);
      await workbench.goTo(at.line, at.column);
      await workbench.command("Quick Fix...");
      const fix = page.locator(".action-widget .monaco-list-row", { hasText: "Replace with 'quote-fare'" }).first();
      await fix.waitFor({ state: "visible", timeout: SERVER_TIMEOUT_MS });
      const file = await workbench.screenshot("quick-fix-menu");
      await copyFile(file, path.join(screenshots, "quick-fix.png"));
      await fix.click();
      await poll("the fixed skills list in the editor", async () =>
        collapse(await workbench.editorText()).includes('"parse-request", "quote-fare"'),
      );
      await poll("AD101 to leave the Problems panel", async () =>
        !/AD101/.test(await workbench.problemsText()), SERVER_TIMEOUT_MS);
      await workbench.screenshot("quick-fix-applied");
    });
  }
}

try {
  await (restricted ? restrictedMode() : fullRun());
} catch (error) {
  failed = true;
  console.error(`FAILED: ${error instanceof Error ? error.stack : String(error)}`);
  await workbench.screenshot("failure").catch(() => undefined);
} finally {
  await browser.close();
}

console.log(`${steps.length} passed, ${failed ? 1 : 0} failed`);
process.exit(failed ? 1 : 0);
