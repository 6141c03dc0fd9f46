"""Runs `skill-lsp check` over pinned public repositories of skills and compares its findings with the judged baseline.

Usage: python ecosystem/check.py [--update] [--repo OWNER/NAME ...] [--cache DIR] [--mirror DIR]
                                 [--repos FILE] [--baseline FILE]

Each repository of `repos.toml` is materialised at its pinned commit in a cache outside this repository (from a
bare git directory under the mirror, else cloned from GitHub), checked with `skill-lsp check --format json`, and
its findings are compared with `baseline.jsonl`, which holds only paths, codes, severities and our own verdicts:
never a third party's text. See docs/ecosystem.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
VERDICTS = ("true", "false", "overstated", "debatable", "unjudged", "-")
JUDGED = ("error", "warning")  # the severities that need a verdict; information and hints get "-"
FIELDS = ("repo", "commit", "path", "line", "code", "severity", "verdict", "reason")
SEVERITY_ORDER = {"error": 0, "warning": 1, "information": 2, "hint": 3}

HISTORY = re.compile(r"was (?P<verdict>true|false|overstated|debatable) as (?P<severity>\w+): (?P<reason>.*)", re.S)

Record = dict[str, Any]
Key = tuple[str, str, int, str, int]  # repo, path, line, code, and which of the findings sharing those four


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ecosystem/check.py", description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the baseline with the current findings")
    parser.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME", help="only this repository")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("SKILL_LSP_ECOSYSTEM_CACHE") or Path.home() / ".cache/skill-lsp/ecosystem"),
        help="where checkouts are kept (default ~/.cache/skill-lsp/ecosystem, or $SKILL_LSP_ECOSYSTEM_CACHE)",
    )
    parser.add_argument(
        "--mirror",
        type=Path,
        default=Path(os.environ.get("SKILL_LSP_ECOSYSTEM_MIRROR") or "/work/.mirror"),
        help="bare git directories named owner+name/... (default /work/.mirror, or $SKILL_LSP_ECOSYSTEM_MIRROR)",
    )
    parser.add_argument("--repos", type=Path, default=HERE / "repos.toml", help="the pinned repositories")
    parser.add_argument("--baseline", type=Path, default=HERE / "baseline.jsonl", help="the judged findings")
    return parser.parse_args(argv)


def load_repos(path: Path) -> list[dict[str, str]]:
    with path.open("rb") as file:
        entries = tomllib.load(file).get("repo", [])
    for entry in entries:
        if len(entry.get("commit", "")) != 40 or "/" not in entry.get("repo", ""):
            raise SystemExit(f"{path}: an entry needs repo = 'owner/name' and a 40-hex commit: {entry}")
    return list(entries)


def git(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)


def is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def mirror_git_dir(mirror: Path, repo: str) -> Path | None:
    """The bare git directory of `repo` under the mirror (`owner+name/`, the git directory at most two levels in)."""
    top = mirror / repo.replace("/", "+")
    if not top.is_dir():
        return None
    candidates = [top, *sorted(top.iterdir()), *sorted(p for d in top.iterdir() if d.is_dir() for p in d.iterdir())]
    return next((c for c in candidates if c.is_dir() and is_git_dir(c)), None)


def has_commit(git_dir: Path, commit: str) -> bool:
    return git(f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0


def clone_git_dir(cache: Path, repo: str, commit: str) -> Path:
    """A bare clone from GitHub kept in the cache, fetched again when it lacks the pinned commit."""
    git_dir = cache / "_git" / (repo.replace("/", "+") + ".git")
    if not is_git_dir(git_dir):
        git_dir.parent.mkdir(parents=True, exist_ok=True)
        done = git("clone", "--bare", "--quiet", f"https://github.com/{repo}.git", str(git_dir))
        if done.returncode:
            raise RuntimeError(f"{repo}: git clone failed: {done.stderr.decode(errors='replace').strip()}")
    if not has_commit(git_dir, commit):
        git(f"--git-dir={git_dir}", "fetch", "--quiet", "origin", commit)
    return git_dir


def missing_blobs(git_dir: Path, commit: str) -> list[str]:
    """Paths whose content the git directory lacks: the mirror's snapshots leave out files of 4 MiB and more."""
    listing = git(f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit).stdout.decode(errors="surrogateescape")
    blobs: dict[str, list[str]] = collections.defaultdict(list)
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind == "blob":
            blobs[sha].append(path)
    asked = "".join(f"{sha}\n" for sha in blobs).encode()
    done = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch-check"], input=asked,
                          capture_output=True, check=False)
    lines = done.stdout.decode().splitlines()
    return sorted(path for line in lines if line.endswith(" missing") for path in blobs[line.split()[0]])


def materialise(repo: str, commit: str, cache: Path, mirror: Path) -> Path:
    """The repository's tree at `commit` in the cache (symlinks kept as git archive keeps them)."""
    checkout = cache / f"{repo.replace('/', '+')}@{commit[:12]}"
    if checkout.is_dir():
        return checkout
    git_dir = mirror_git_dir(mirror, repo)
    if git_dir is None or not has_commit(git_dir, commit):
        git_dir = clone_git_dir(cache, repo, commit)
    if not has_commit(git_dir, commit):
        raise RuntimeError(f"{repo}: commit {commit} is neither in the mirror nor on GitHub")
    cache.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=checkout.name + ".", dir=cache))
    absent = [f":(exclude,literal){path}" for path in missing_blobs(git_dir, commit)]
    if absent:
        print(f"{repo}: {len(absent)} files absent from the git directory (a snapshot's large files) are left out",
              file=sys.stderr)
    archive = subprocess.Popen(["git", f"--git-dir={git_dir}", "archive", commit, "--", ".", *absent],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    untar = subprocess.run(["tar", "-x", "-C", str(partial)], stdin=archive.stdout, capture_output=True, check=False)
    if archive.stdout is not None:
        archive.stdout.close()
    if archive.wait() or untar.returncode:
        shutil.rmtree(partial, ignore_errors=True)
        raise RuntimeError(f"{repo}: git archive | tar failed: {untar.stderr.decode(errors='replace').strip()}")
    partial.rename(checkout)  # only a whole tree gets the checkout's name
    return checkout


def check(repo: str, commit: str, checkout: Path) -> list[Record]:
    """Every finding of `skill-lsp check` in the checkout, with paths relative to it."""
    with tempfile.TemporaryDirectory(prefix="skill-lsp-ecosystem-home.") as home:
        # An empty home: the machine's own ~/.claude/skills must not take part in a repository's check.
        env = {**os.environ, "HOME": home, "XDG_CACHE_HOME": home, "NO_COLOR": "1"}
        empty = Path(home) / "skills"
        empty.mkdir()
        command = [sys.executable, "-m", "skill_lsp", "check", "--format", "json", "--no-cache", "-q",
                   "--color", "never", "--user-skills-dir", str(empty), "."]
        done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1 is "errors found"; anything else is skill-lsp failing, not a clean tree
        raise RuntimeError(f"{repo}: skill-lsp check exited {done.returncode}: {done.stderr[-2000:]}")
    try:
        raw = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(f"{repo}: skill-lsp check gave no JSON (exit {done.returncode}): {done.stderr[-2000:]}") from error
    findings = []
    for item in raw:
        path = Path(item["path"])
        relative = os.path.relpath(path, checkout) if path.is_absolute() else str(path)
        findings.append({"repo": repo, "commit": commit, "path": Path(relative).as_posix(), "line": int(item["line"]),
                         "column": int(item.get("column", 0)), "code": item["code"], "severity": item["severity"],
                         "message": item.get("message", "")})
    return findings


def keyed(records: Iterable[Record]) -> dict[Key, Record]:
    """Records by (repo, path, line, code, n): the n-th of the findings sharing the first four, in column order."""
    seen: collections.Counter[tuple[str, str, int, str]] = collections.Counter()
    result: dict[Key, Record] = {}
    for record in sorted(records, key=lambda r: (r["repo"], r["path"], r["line"], r["code"], r.get("column", 0))):
        four = (record["repo"], record["path"], int(record["line"]), record["code"])
        key: Key = (*four, seen[four])
        result[key] = record
        seen[four] += 1
    return result


def load_baseline(path: Path) -> list[Record]:
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def write_baseline(path: Path, records: Iterable[Record]) -> None:
    rows = sorted(records, key=lambda r: (r["repo"], r["path"], r["line"], r["code"], r.get("column", 0)))
    text = "".join(json.dumps({f: r[f] for f in FIELDS}, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")


def verdict_for(new: Record, old: Record | None) -> tuple[str, str]:
    """The verdict a current finding carries over from the baseline's finding of the same key.

    A verdict is about a severity ("overstated" as an error may be "true" as a warning): when the severity changes it
    is kept in the reason as "was VERDICT as SEVERITY: reason", to be judged again, and given back if the finding
    returns to that severity.
    """
    old_verdict, old_reason = (old or {}).get("verdict"), (old or {}).get("reason", "")
    if old is None or old_verdict is None:
        return ("unjudged", "") if new["severity"] in JUDGED else ("-", "")
    if old["severity"] == new["severity"]:
        return old_verdict, old_reason
    remembered = HISTORY.match(old_reason)
    if remembered and remembered["severity"] == new["severity"]:
        return remembered["verdict"], remembered["reason"]
    if old_verdict in ("-", "unjudged"):
        history = old_reason if remembered else ""
    else:
        history = f"was {old_verdict} as {old['severity']}: {old_reason}"
    return ("unjudged" if new["severity"] in JUDGED else "-"), history


def describe(record: Record) -> str:
    where = f"{record['repo']}:{record['path']}:{record['line']}"
    extra = f"  [{record['verdict']}] {record.get('reason', '')}".rstrip() if record.get("verdict") not in (None, "-") else ""
    return f"  {where}: {record['code']} {record['severity']}{extra}"


def summary(records: Sequence[Record]) -> list[str]:
    """A table per code and severity: counts, verdicts and precision over judged errors and warnings."""
    table: dict[tuple[str, str], collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for record in records:
        for row in ((record["code"], record["severity"]), ("all", record["severity"])):
            table[row]["count"] += 1
            table[row][record.get("verdict", "unjudged")] += 1
    columns = ("count", "true", "false", "overstated", "debatable", "unjudged")
    lines = [f"{'code':<7}{'severity':<12}" + "".join(f"{c:>11}" for c in columns) + f"{'precision':>11}"]
    for (code, severity), counts in sorted(table.items(), key=lambda kv: (kv[0][0] == "all", kv[0][0],
                                                                          SEVERITY_ORDER.get(kv[0][1], 9))):
        judged = counts["true"] + counts["false"] + counts["overstated"]
        precision = f"{counts['true'] / judged:.2f}" if severity in JUDGED and judged else "-"
        cells = "".join(f"{counts[c] if severity in JUDGED or c == 'count' else '':>11}" for c in columns)
        lines.append(f"{code:<7}{severity:<12}{cells}{precision:>11}")
    return lines


def compare(current: list[Record], baseline: list[Record]) -> tuple[list[Record], list[Record], list[tuple[Record, Record]]]:
    """New findings, gone findings and severity changes between the baseline and the current findings."""
    now, before = keyed(current), keyed(baseline)
    new = [now[k] for k in now if k not in before]
    gone = [before[k] for k in before if k not in now]
    changed = [(before[k], now[k]) for k in now if k in before and before[k]["severity"] != now[k]["severity"]]
    return new, gone, changed


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv)
    repos = load_repos(options.repos)
    if options.repo:
        unknown = set(options.repo) - {r["repo"] for r in repos}
        if unknown:
            raise SystemExit(f"not in {options.repos}: {', '.join(sorted(unknown))}")
        repos = [r for r in repos if r["repo"] in options.repo]
    chosen = {r["repo"] for r in repos}
    baseline_all = load_baseline(options.baseline)
    baseline = [r for r in baseline_all if r["repo"] in chosen]

    current: list[Record] = []
    failures = 0
    for entry in repos:
        try:
            checkout = materialise(entry["repo"], entry["commit"], options.cache.expanduser(), options.mirror)
            found = check(entry["repo"], entry["commit"], checkout)
        except RuntimeError as error:
            print(f"error: {error}", file=sys.stderr)
            failures += 1
            # Keep its baseline as it is: a repository that could not be checked is not a repository with no findings.
            current.extend(r for r in baseline if r["repo"] == entry["repo"])
            continue
        print(f"{entry['repo']}@{entry['commit'][:12]}: {len(found)} findings", file=sys.stderr)
        current.extend(found)

    old_by_key = keyed(baseline)
    for key, record in keyed(current).items():
        if "verdict" not in record or "message" in record:
            record["verdict"], record["reason"] = verdict_for(record, old_by_key.get(key))

    new, gone, changed = compare(current, baseline)
    for title, rows in (("new findings (not in the baseline)", new), ("gone findings (in the baseline only)", gone)):
        if rows:
            print(f"{title}: {len(rows)}")
            print("\n".join(describe(r) for r in rows))
    if changed:
        print(f"severity changes: {len(changed)}")
        for old, now in changed:
            print(f"  {now['repo']}:{now['path']}:{now['line']}: {now['code']} {old['severity']} -> {now['severity']}"
                  f"  (was [{old.get('verdict', '')}] {old.get('reason', '')})".rstrip())
    print("\n".join(summary(current)))
    unjudged = sum(1 for r in current if r["severity"] in JUDGED and r["verdict"] == "unjudged")
    print(f"{len(repos)} repositories, {len(current)} findings; new {len(new)}, gone {len(gone)}, "
          f"severity changes {len(changed)}, unjudged errors and warnings {unjudged}")

    if options.update:
        kept = [r for r in baseline_all if r["repo"] not in chosen]
        write_baseline(options.baseline, kept + current)
        print(f"baseline written: {options.baseline}")
        return 2 if failures else 0
    if failures:
        return 2
    return 1 if new or gone or changed or unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
