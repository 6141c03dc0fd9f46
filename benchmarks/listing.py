"""Figure 4 with listing budgets on (LS101, docs/performance.md "Listing budgets"): didChange -> publishDiagnostics
of a `.claude/skills` SKILL.md whose description changes length, in the corpus of run.py with a project
`.claude/settings.json` and a `ClaudeAgentOptions(setting_sources=["project"])` that lists every discovered skill — the worst case: each edit
measures the project's listing and the session's again (3,500 skills at 10,000, both over budget).

    python benchmarks/listing.py --sizes 1000,10000
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import ensure_corpus  # noqa: E402
from run import Row, _started_on, compile_bytecode, environment, percentile, table, uri  # noqa: E402

SESSION = 'from claude_agent_sdk import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(setting_sources=["project"])\n'


def listing_corpus(out: Path, size: int) -> tuple[Path, Path]:
    """run.py's corpus of size skills, copied, with the project's settings file and the every-skill session;
    the root and a `.claude/skills` SKILL.md of it."""
    manifest = ensure_corpus(out / f"corpus-{size}", size)
    root = out / f"listing-{size}"
    if not root.exists():
        shutil.copytree(manifest.root, root)
        (root / ".claude" / "settings.json").write_text("{}\n", encoding="utf-8")
        (root / "listing_session.py").write_text(SESSION, encoding="utf-8")
    skill = sorted((root / ".claude" / "skills").glob("*/SKILL.md"))[0]
    return root, skill


def edit_figure(root: Path, skill: Path, env: dict[str, str], samples: int, size: int) -> Row:
    client = _started_on(env, root)[0]
    try:
        original = skill.read_text(encoding="utf-8")
        longer = original.replace("description: ", "description: " + "A longer description for the listing. " * 8, 1)
        target = uri(skill)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": target, "languageId": "markdown", "version": 1,
                                                                "text": original}})
        time.sleep(0.5)
        latencies = []
        version = 1
        for index in range(samples * 2):
            version += 1
            sent = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": target, "version": version},
                                                     "contentChanges": [{"text": longer if index % 2 == 0 else original}]})
            client.wait(lambda m, version=version: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == target and m["params"].get("version") == version)
            latencies.append(time.perf_counter() - sent)
        return Row("4 didChange → diagnostics: .claude SKILL.md description edit, listings on", size,
                   percentile(latencies, 0.5) * 1000, "ms", extra={"p95": percentile(latencies, 0.95) * 1000})
    finally:
        client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    compile_bytecode()
    rows = []
    for size in (int(part) for part in args.sizes.split(",")):
        root, skill = listing_corpus(args.out, size)
        cache = args.out / f"listing-cache-{size}"
        shutil.rmtree(cache, ignore_errors=True)
        rows.append(edit_figure(root, skill, environment(cache), args.samples, size))
    smallest = rows[0]
    for row in rows:
        row.target = "p50 ≤ 20 ms" + (", ≤ 1.5× the smallest size's" if row is not smallest else "")
        if row is not smallest:
            row.floor, row.floor_label = smallest.value, f"same at {smallest.size:,}"
        row.met = row.value <= 20 and (row is smallest or row.value <= 1.5 * smallest.value)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
