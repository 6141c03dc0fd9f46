"""SK116: a SKILL.md or agent file that is not valid UTF-8, reported at its first bad byte."""

from __future__ import annotations

from pathlib import Path

from ..model import Profile, Span
from .report import Reporter


def check_encoding(reporter: Reporter, path: Path, problem: tuple[int, int, str] | None, *, python: bool,
                   profile: Profile | None = None) -> None:
    if problem is None:
        return
    line, column, reason = problem
    utf16 = reason.startswith("the file is UTF-16")
    if python:
        consequence = "Python reads source files as UTF-8 (PEP 3120) and refuses this one with a SyntaxError on import"
    elif utf16:
        consequence = "runtimes read SKILL.md as UTF-8, and find no frontmatter in UTF-16 bytes"
    else:
        consequence = ("runtimes read SKILL.md as UTF-8: the Agent Skills reference loader refuses the file "
                       "(UnicodeDecodeError) and a lenient reader gives the model replacement characters")
    reporter.report("SK116", path, Span.of(line, column, line, column + 1), f"{reason}; {consequence}; save it as UTF-8",
                    profile=profile)
