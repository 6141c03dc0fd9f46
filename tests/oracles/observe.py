"""What every oracle and skill-lsp say about the fixtures.

    python tests/oracles/observe.py [CASE ...]            # print the observations as JSON
    python tests/oracles/observe.py --write [CASE ...]    # refresh expected.toml from them (review the diff)
    python tests/oracles/observe.py --markdown            # expected.toml as the tables of docs/oracles.md

--write keeps each row's `difference` and `note`, sets `status` by the agreement rule (table.disagreement),
and keeps a documented difference while skill-lsp still says what it documents. The oracles come from
scripts/install-oracles (or SKILL_LSP_CLAUDE / SKILL_LSP_SKILLS_REF / SKILL_LSP_CODEX).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from oracles import find_claude, find_codex, find_skills_ref, observe
from table import TABLE, dump, load, refresh

FIXTURES = Path(__file__).parent / "fixtures"
LAYOUTS = ("claude", "spec", "codex")


def observations(cases: list[str]) -> dict:
    binaries = {"claude": find_claude(), "skills_ref": find_skills_ref(), "codex": find_codex()}
    result: dict = {}
    for case in cases:
        for layout in LAYOUTS:
            if (FIXTURES / case / layout).is_dir():
                result.setdefault(case, {})[layout] = observe(FIXTURES / case, layout, binaries)
    return result


def markdown() -> str:
    """expected.toml as Markdown: one table per layout, then the documented differences."""
    rows = load()
    names = {"claude": "Claude Code 2.1.332 — `claude plugin validate --json` on `claude/`",
             "spec": "skills-ref 0.1.1 — `agentskills validate` on each skill of `spec/skills/`",
             "codex": "Codex 0.171.0 — `codex debug prompt-input` in `codex/` (which skills it lists)"}
    out: list[str] = []

    def cell(items: list[str]) -> str:
        return "<br>".join(item.replace("|", "\\|") for item in items) or "—"

    for layout in LAYOUTS:
        out += [f"### {names[layout]}", "", "| Case | File | Oracle | skill-lsp | Status |", "|---|---|---|---|---|"]
        for row in rows:
            if row["layout"] == layout:
                question = (FIXTURES / row["case"] / "QUESTION").read_text(encoding="utf-8").strip()
                status = {"agree": "agree", "bug": "**bug**", "difference": "difference ¹"}[row["status"]]
                out.append(f"| `{row['case']}` ({question}) | `{row['file']}` | {cell(row['oracle'])} | "
                           f"{cell(row['skill_lsp'])} | {status} |")
        out.append("")
    out += ["### ¹ Documented differences", ""]
    for row in rows:
        if row["status"] == "difference":
            out.append(f"- `{row['case']}` / {row['layout']} / `{row['file']}`: {row['difference']}")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if "--markdown" in argv:
        sys.stdout.write(markdown())
        return 0
    write = "--write" in argv
    chosen = [arg for arg in argv if not arg.startswith("--")]
    cases = chosen or sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
    seen = observations(cases)
    if not write:
        json.dump(seen, sys.stdout, indent=1, ensure_ascii=False)
        print()
        return 0
    text = TABLE.read_text(encoding="utf-8") if TABLE.exists() else ""
    header = text.split("\n[[row]]", 1)[0] if text else "# the differential table: see table.py"
    old = load() if text else []
    kept = [row for row in old if row["case"] not in seen]
    rows = sorted(kept + refresh(seen, [row for row in old if row["case"] in seen]),
                  key=lambda row: (row["case"], LAYOUTS.index(row["layout"]), row["file"]))
    TABLE.write_text(dump(rows, header), encoding="utf-8")
    bugs = sum(row["status"] == "bug" for row in rows)
    print(f"{TABLE}: {len(rows)} rows, {bugs} marked bug", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
