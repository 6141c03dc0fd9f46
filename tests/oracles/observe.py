"""Print what every oracle and skill-lsp say about every fixture, as JSON (`python tests/oracles/observe.py [CASE ...]`).

Used to write and review expected.toml; the test (test_oracles.py) compares the same observations with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from oracles import find_claude, find_codex, find_skills_ref, observe  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"


def main(argv: list[str]) -> int:
    binaries = {"claude": find_claude(), "skills_ref": find_skills_ref(), "codex": find_codex()}
    cases = argv or sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
    result: dict[str, dict[str, object]] = {}
    for case in cases:
        for layout in ("claude", "spec", "codex"):
            if (FIXTURES / case / layout).is_dir():
                result.setdefault(case, {})[layout] = observe(FIXTURES / case, layout, binaries)
    json.dump(result, sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
