"""The floors the benchmark compares skill-lsp against: the least work any checker must do.

    python benchmarks/floors.py read-parse ROOT   # read every SKILL.md, compose its frontmatter
                                                   # with libyaml, read every Python file
    python benchmarks/floors.py stat ROOT         # walk the tree and stat every file
    python benchmarks/floors.py skills-ref ROOT   # skills-ref's validate() on each skill directory

Each walks with os.scandir and skips the directories skill-lsp skips, so the
work compared is the same set of files.
"""

from __future__ import annotations

import os
import sys

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".tox", ".nox", ".venv", "venv", ".eggs", "site-packages", ".direnv", ".cache",
})


def walk(root: str) -> tuple[list[str], list[str], int]:
    skills: list[str] = []
    pythons: list[str] = []
    others = 0
    stack = [root]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIP_DIRS:
                        stack.append(entry.path)
                elif entry.name == "SKILL.md":
                    skills.append(entry.path)
                elif entry.name.endswith(".py"):
                    pythons.append(entry.path)
                else:
                    others += 1
    return skills, pythons, others


def read_parse(root: str) -> int:
    import yaml

    skills, pythons, _ = walk(root)
    composed = 0
    for path in skills:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if text.startswith("---\n"):
            end = text.find("\n---", 4)
            if end != -1:
                try:
                    yaml.compose(text[4:end], Loader=yaml.CSafeLoader)
                    composed += 1
                except yaml.YAMLError:
                    pass
    for path in pythons:
        with open(path, encoding="utf-8") as handle:
            handle.read()
    return composed


def stat_all(root: str) -> int:
    count = 0
    stack = [root]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIP_DIRS:
                        stack.append(entry.path)
                else:
                    entry.stat()
                    count += 1
    return count


def skills_ref(root: str) -> int:
    from pathlib import Path

    from skills_ref import validate

    skills, _, _ = walk(root)
    problems = 0
    for path in skills:
        problems += len(validate(Path(path).parent))
    print(f"{problems} problems in {len(skills)} skills")
    return problems


def main() -> None:
    command, root = sys.argv[1], sys.argv[2]
    {"read-parse": read_parse, "stat": stat_all, "skills-ref": skills_ref}[command](root)


if __name__ == "__main__":
    main()
