"""The words a fix writes that only the author's text can give: a description taken from a skill's body.

A fix never writes a placeholder (`description: ` is reported as empty the moment it is written). Where a
skill has no description, Claude Code lists it with the body's first paragraph (2.1.332's loader): a fix
may write that paragraph into the frontmatter, which says what the runtime already shows. When the body
has no paragraph of prose (only headings, lists, code), there is nothing honest to write, and no fix.
"""

from __future__ import annotations

import re

import yaml

from .bodyscan import FENCE
from .runtimes.spec import DESCRIPTION_LIMIT
from .skillfile import quote_yaml_value

# A description taken from a body is kept to its first sentences within SENTENCES_UP_TO characters, well
# inside the spec's limit (DESCRIPTION_LIMIT) and Claude Code's listing cap.
SENTENCES_UP_TO = 250

# a line that starts a block other than a paragraph: a heading, a list item, a quote, a table, HTML, a rule, an image
_NOT_PROSE = re.compile(r"^\s{0,3}(#|[-*+]\s|\d+[.)]\s|>|\||<|!\[|([-*_])\s*\2\s*\2)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def description_from_body(lines: list[str]) -> str | None:
    """The first paragraph of prose of a skill's body (its lines), on one line: links as their text, bold and
    italic marks dropped, cut to its first sentences; None when the body has none that a description can be."""
    fence: str | None = None
    paragraph: list[str] = []
    for line in [*lines, ""]:
        opening = FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if line.strip() and not opening and not _NOT_PROSE.match(line):
            paragraph.append(line.strip())
            continue
        if paragraph:
            description = _description_of(" ".join(paragraph))
            if description is not None:
                return description
            paragraph = []
        if opening:
            fence = opening.group(1)
    return None


def _description_of(paragraph: str) -> str | None:
    text = _LINK.sub(r"\1", paragraph)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = " ".join(text.split())
    if not text or "<" in text or ">" in text:
        return None  # (angle brackets: Anthropic's upload check refuses them in a description)
    if len(text) > SENTENCES_UP_TO:
        sentences = _SENTENCE_END.split(text)
        kept = sentences[0]
        for sentence in sentences[1:]:
            if len(kept) + 1 + len(sentence) > SENTENCES_UP_TO:
                break
            kept += " " + sentence
        text = kept
    return text if len(text) <= DESCRIPTION_LIMIT else None


# words and common punctuation after a letter: no indicator, no ': ' or ' #', no tab; with no trailing space
# and none of YAML 1.1's booleans or null (_YAML_WORDS), YAML reads it back as that very string
_SURELY_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 ,.;()'/-]*")
_YAML_WORDS = frozenset({"yes", "no", "true", "false", "on", "off", "null"})


def yaml_value(text: str) -> str:
    """text as the value of a one-line `key: value` entry: plain where YAML reads it back as that very
    string, else double-quoted."""
    if _SURELY_PLAIN.fullmatch(text) and not text.endswith(" ") and text.lower() not in _YAML_WORDS:
        return text  # (PyYAML's loader, in Python, costs more than all the rest of a skill's rules)
    try:
        plain = yaml.safe_load(f"key: {text}") == {"key": text}
    except yaml.YAMLError:
        plain = False
    return text if plain and "\t" not in text else quote_yaml_value(text)
