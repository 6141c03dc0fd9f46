"""The nearest known names, for "did you mean": difflib's answer, found without scoring every name."""

from __future__ import annotations

import difflib
import heapq
from collections.abc import Iterable

from rapidfuzz import process
from rapidfuzz.distance import Indel


def close_matches(word: str, choices: Iterable[str], count: int, cutoff: float = 0.6) -> list[str]:
    """Exactly `difflib.get_close_matches(word, choices, count, cutoff)`, without scoring every choice.

    difflib's ratio counts the characters of matching blocks, which form a common subsequence, so
    it is at most the longest common subsequence's ratio that rapidfuzz computes in C for thousands
    of names in a millisecond. Choices are scored with difflib in decreasing order of that bound,
    and the search stops once the bound falls below the count-th best score found.
    """
    bounded = process.extract(word, choices, scorer=Indel.normalized_similarity, score_cutoff=max(cutoff - _SLACK, 0),
                              limit=None)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    scored: list[tuple[float, str]] = []
    best: list[float] = []  # the count best scores so far, a min-heap
    for choice, bound, _ in bounded:
        if len(best) == count and bound < best[0] - _SLACK:
            break
        matcher.set_seq1(choice)
        # ratio() is at most quick_ratio(), itself at most real_quick_ratio(): a choice whose bound
        # is below the cutoff, or below the count-th best score (ties are decided by the name, so
        # only strictly below), is not scored at all
        floor = best[0] if len(best) == count and best[0] > cutoff else cutoff
        if matcher.real_quick_ratio() >= floor and matcher.quick_ratio() >= floor:
            score = matcher.ratio()
            if score >= cutoff:
                scored.append((score, choice))
                if len(best) < count:
                    heapq.heappush(best, score)
                elif score > best[0]:
                    heapq.heapreplace(best, score)
    return [choice for _, choice in heapq.nlargest(count, scored)]


# rapidfuzz's float scores, and its cutoff turned into a distance, may round apart from difflib's ratio
# (a score exactly at the cutoff can be left out): filter and stop only this far below
_SLACK = 0.01


def may_reach(word: str, choice: str, cutoff: float = 0.6) -> bool:
    """False when difflib's ratio of word and choice is surely below cutoff: their longest common
    subsequence's ratio (in C) bounds it from above."""
    return bool(Indel.normalized_similarity(word, choice) >= cutoff - _SLACK)


# Answers a NameIndex keeps (each a few names).
MAX_ANSWERS = 1024


class NameIndex:
    """Known names for "did you mean", lowercased once and kept up to date as names come and go
    (a skill's rename moves one name of its registry)."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._spellings: dict[str, list[str]] = {}  # lowered -> the names that lower to it
        # (name, count) -> the answer, until a name comes or goes: a file that names an unknown
        # skill is checked again on every keystroke elsewhere in it, and each search scores every name
        self._answers: dict[tuple[str, int], list[str]] = {}
        for name in names:  # there are no answers to forget yet
            self._spell(name)

    def add(self, name: str) -> None:
        if self._spell(name):
            self._answers.clear()

    def _spell(self, name: str) -> bool:
        """name kept under its lowered spelling; whether it is new."""
        lowered = name.lower()
        known = self._spellings.get(lowered)
        if known is None:
            self._spellings[lowered] = [name]
            return True
        if name in known:
            return False
        known.append(name)
        return True

    def discard(self, name: str) -> None:
        lowered = name.lower()
        spellings = self._spellings.get(lowered)
        if spellings is not None and name in spellings:
            spellings.remove(name)
            if not spellings:
                del self._spellings[lowered]
            self._answers.clear()

    def closest(self, name: str, count: int = 3) -> list[str]:
        """The known names nearest to name, best first (of names differing only in case, the greatest:
        what `closest` answers for the sorted names)."""
        if not self._spellings:
            return []
        answer = self._answers.get((name, count))
        if answer is None:
            if len(self._answers) >= MAX_ANSWERS:
                self._answers.clear()  # names typed one keystroke at a time: keep the recent ones only
            matches = close_matches(name.lower(), self._spellings.keys(), count)
            answer = self._answers[(name, count)] = [max(self._spellings[match]) for match in matches]
        return list(answer)
