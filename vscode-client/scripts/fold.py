"""Folds the per-Python installs of the bundle into one copy of what they share (used by bundle.py).

Each stage is a `--target` install for one Python version (cp310, cp311, ...). A distribution goes
to the shared directory when every stage holds it at the same version and its files agree: a path
found in two stages has the same bytes in both, and a path found in some stages only is a compiled
module named for its Python (`_yaml.cpython-312-x86_64-linux-gnu.so`, `_binding.cp312-win_amd64.pyd`),
which the import system of another version never loads. Pure-Python and abi3 wheels are thus kept
once, and a compiled package keeps its Python code once beside one module per version. Everything
else stays in the stage's own directory. In a shared distribution's `.dist-info`, only RECORD, WHEEL
and DELVEWHEEL may differ between stages (each version's wheel's files, tags and build); they are merged.
"""

from __future__ import annotations

import csv
import filecmp
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

# A compiled module whose name says which Python loads it: CPython's EXTENSION_SUFFIXES on Linux and
# macOS (`.cpython-312-x86_64-linux-gnu.so`, `.cpython-312-darwin.so`) and Windows (`.cp312-win_amd64.pyd`).
VERSIONED_MODULE = re.compile(r"\.(cpython-3\d+[^./]*\.so|cp3\d+-[^./]*\.pyd)$")
# What each version's wheel writes for itself: its files, its tags, delvewheel's note of the build (Windows).
MERGED_METADATA = ("RECORD", "WHEEL", "DELVEWHEEL")


@dataclass
class Distribution:
    """One installed distribution of a stage: its `.dist-info` directory and the files its RECORD lists."""

    info: str
    files: list[str] = field(default_factory=list)

    def tops(self) -> set[str]:
        """The top-level names it installs (packages, modules, its .dist-info)."""
        return {path.split("/", 1)[0] for path in self.files}


def distributions(stage: Path) -> dict[str, Distribution]:
    """The stage's distributions by `.dist-info` name (which carries the version), from their RECORD files."""
    found: dict[str, Distribution] = {}
    for info in sorted(stage.glob("*.dist-info")):
        with open(info / "RECORD", newline="", encoding="utf-8") as stream:
            listed = [row[0] for row in csv.reader(stream) if row]
        # console scripts (../../bin) and byte code are removed by bundle.py before folding
        files = sorted(path for path in listed if not path.startswith("..") and (stage / path).is_file())
        found[info.name] = Distribution(info.name, files)
    return found


def shareable(name: str, stages: list[Path], found: list[dict[str, Distribution]]) -> bool:
    """True when the distribution `name` is in every stage and its files agree (see the module's docstring)."""
    if any(name not in one for one in found):
        return False
    seen: dict[str, Path] = {}
    counts: dict[str, int] = {}
    for stage, one in zip(stages, found, strict=True):
        for path in one[name].files:
            counts[path] = counts.get(path, 0) + 1
            first = seen.setdefault(path, stage)
            if first is stage or (path.split("/")[-1] in MERGED_METADATA and path.startswith(name + "/")):
                continue
            if not filecmp.cmp(first / path, stage / path, shallow=False):
                return False
    return all(count == len(stages) or VERSIONED_MODULE.search(path) for path, count in counts.items())


def merged_lines(files: list[Path]) -> str:
    """The lines of files, each once, in the order first seen."""
    lines: dict[str, None] = {}
    for file in files:
        lines.update(dict.fromkeys(file.read_text(encoding="utf-8").splitlines()))
    return "".join(line + "\n" for line in lines)


def move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(source), str(target))


def fold(stages: list[Path], shared: Path, out: dict[Path, Path]) -> list[str]:
    """Moves what the stages share to `shared`, and the rest of each stage to `out[stage]`.

    Returns the names of the shared distributions. A distribution that is not shareable keeps every
    top-level name it installs in the stages' own directories, with whatever shares one of them (two
    distributions writing into one package, a namespace package), so no package is split in two.
    """
    found = [distributions(stage) for stage in stages]
    names = sorted({name for one in found for name in one})
    shared_names = {name for name in names if shareable(name, stages, found)}
    while True:  # demote whatever shares a top-level name with a distribution kept per version
        kept = {top for one in found for name, dist in one.items() if name not in shared_names for top in dist.tops()}
        demoted = {name for name in shared_names if found[0][name].tops() & kept}
        if not demoted:
            break
        shared_names -= demoted
    for name in sorted(shared_names):
        metadata = {
            file: merged_lines([stage / name / file for stage in stages if (stage / name / file).exists()])
            for file in MERGED_METADATA
            if (stages[0] / name / file).exists()
        }
        for stage, one in zip(stages, found, strict=True):
            for path in one[name].files:
                source, target = stage / path, shared / path
                if target.exists():
                    source.unlink()
                else:
                    move(source, target)
        for file, text in metadata.items():
            (shared / name / file).write_text(text, encoding="utf-8")
    for stage in stages:
        for directory in sorted((path for path in stage.rglob("*") if path.is_dir()), key=lambda p: len(p.parts), reverse=True):
            if not any(directory.iterdir()):
                directory.rmdir()
        for entry in sorted(stage.iterdir()):
            move(entry, out[stage] / entry.name)
    clashes = sorted({entry.name for directory in out.values() if directory.exists() for entry in directory.iterdir()}
                     & {entry.name for entry in shared.iterdir()} if shared.exists() else set())
    if clashes:  # the version's directory comes first on sys.path: it would hide the shared copy
        raise SystemExit(f"the shared and per-version libraries both hold {', '.join(clashes)}")
    return sorted(shared_names)
