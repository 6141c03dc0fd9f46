"""The terms SK310 compares of a skill's description: its content words, folded, and its pairs of adjacent content words (overlap.py compares them; its docstring says why these).

Worked out once a description (`terms_of`, kept by the description's text): check's analyses arrive with their
descriptions' terms worked out (workspace.analysed_entry), and the choices of overlap.py look them up.
"""

from __future__ import annotations

import functools
import re
import sys
from itertools import pairwise

__all__ = ["STOPWORDS", "WORD", "known_terms", "terms_of", "words_of"]

# English function words, and the words that skill descriptions all use to say when they apply
STOPWORDS = frozenset("""
a about above after again against all almost also always am an and any anything are around as at be because been
before being below between both but by can cannot could did do does doing done down during each either else etc even
ever every for from further get gets getting had has have having he her here hers him his how however i if in into is
it its itself just let lets like may me might more most much must my need needed needs no nor not now of off often on
once one only or other others otherwise our ours out over own per please rather same shall she should since so some
something such than that the their theirs them then there these they this those through thus to too under until up
upon us use used uses using very via want wanted wants was we well were what whatever when whenever where whether
which while who whom whose why will with within without would yet you your yours yourself
skill skills user users asks ask asked asking request requests requested invoke invoked trigger triggers triggered
triggering help helps task tasks claude agent agents model tool tools provide provides providing including include
includes e g eg ie i.e work works working make makes new
""".split())

WORD = re.compile(r"[^\W_]+")
# what splits words, for str.translate: the ASCII punctuation (any other character the regular expression
# above splits at is found in the rare text that holds one)
_SPLIT = str.maketrans({char: " " for char in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"})


def _fold(word: str) -> str:
    """A plural folded into its singular: `files` → `file`, `queries` → `query`, `classes` → `class`."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "os")):
        return word[:-1]
    return word


_FOLDED: dict[str, str] = {}  # a word as written -> as compared ("" when it is not compared)
_FOLDED_BYTES: dict[bytes, str] = {}  # the same for an ASCII description's words, as bytes
_CACHED_WORDS = 200_000  # the most words either cache keeps

# an ASCII description lowercased and split at once (bytes.translate, one table look-up a byte): the ASCII
# punctuation of _SPLIT, and the separators str.split() splits at but bytes.split() does not, become spaces
_ASCII_SPLIT = bytes(32 if chr(code) in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\x1c\x1d\x1e\x1f"
                     else code + 32 if 65 <= code <= 90 else code for code in range(256))


def _content(word: str) -> str:
    if word in STOPWORDS or len(word) < 2 or word.isdigit():
        folded = ""
    else:
        folded = _fold(word)
        folded = "" if folded in STOPWORDS else folded
    if len(_FOLDED) < _CACHED_WORDS:
        _FOLDED[word] = folded
    return folded


@functools.lru_cache(maxsize=65536)
def words_of(description: str) -> tuple[str, ...]:
    """The description's content words in order, folded (`Extracts tables from PDFs` → extract, table, pdf)."""
    if description.isascii():
        # the common case at C speed: its words as bytes, each looked up in the cache of words seen
        ascii_words = description.encode().translate(_ASCII_SPLIT).split()
        known_bytes = _FOLDED_BYTES
        try:
            return tuple(filter(None, map(known_bytes.__getitem__, ascii_words)))
        except KeyError:  # a word not seen yet
            if len(known_bytes) < _CACHED_WORDS:
                for word in set(ascii_words).difference(known_bytes):
                    text = word.decode()
                    known_bytes[word] = _FOLDED[text] if text in _FOLDED else _content(text)
                return tuple(filter(None, map(known_bytes.__getitem__, ascii_words)))
    lowered = description.lower()
    # split at ASCII punctuation and white space (C speed); the regular expression only for other text
    words = lowered.translate(_SPLIT).split() if lowered.isascii() else WORD.findall(lowered)
    known = _FOLDED
    return tuple(folded for word in words if (folded := known.get(word) if word in known else _content(word)))


# description -> its terms: a plain dict, not an lru_cache, whose every hit moves its entry to the front (the
# choices look up 11,000 descriptions at 10,000 skills: the cache's links cost more than the look-up)
_TERMS: dict[str | None, frozenset[str]] = {}  # (asked of any description, None too)
_CACHED_TERMS = 65_536
_NO_TERMS: frozenset[str] = frozenset()
# _TERMS.get, for a caller that looks up many descriptions (a miss: terms_of; the dict is cleared, never replaced)
known_terms = _TERMS.get


def terms_of(description: str | None) -> frozenset[str]:
    """The terms compared: the content words and each pair of adjacent content words."""
    if not description:
        return _NO_TERMS
    found = _TERMS.get(description)
    if found is None:
        words = words_of(description)
        # the pairs interned, as the words are shared: the choices' counts and intersections then find a term
        # by identity, not by comparing its text (the roots' choices at 10,000 skills: 21 -> 17 ms; 1 ms more here)
        found = frozenset((*words, *map(sys.intern, map(" ".join, pairwise(words)))))
        if len(_TERMS) >= _CACHED_TERMS:
            _TERMS.clear()
        _TERMS[description] = found
    return found
