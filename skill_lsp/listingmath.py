"""A listing's arithmetic: text measured as Claude Code measures it (display columns, UTF-16 cuts) and which
descriptions a budget can drop whatever the order of use (`at_risk`, `dropped_at_least`)."""

from __future__ import annotations

import bisect
import itertools
import unicodedata

EXACT_CHECKS = 8  # distinct description sizes checked exactly for risk (at_risk)


def width(text: str) -> int:
    """Display columns, as Bun.stringWidth counts them: wide and full-width characters 2, combining marks and
    format characters 0, the rest 1."""
    if text.isascii():
        return len(text)
    total = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf", "Cc"):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def utf16_cut(text: str, units: int) -> str:
    """The longest prefix of text of at most `units` UTF-16 code units (JavaScript's slice)."""
    if len(text) <= units // 2 or text.isascii() or all(ord(char) < 0x10000 for char in text):
        return text[:units]
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) >= 0x10000 else 1
        if used > units:
            return text[:index]
    return text


def utf16_length(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) >= 0x10000)


def at_risk(extras: list[int], room: int) -> list[bool]:
    """For each description of `extras` (its cost over its bare entry), whether some order of use leaves it
    out when descriptions are kept, most used first, while they fit in `room`: it is at risk when the others
    can fill the room to less than its own cost from its end (a subset of them sums into (room - cost, room])."""
    if sum(extras) <= room:
        return [False] * len(extras)
    if room < 0:
        return [True] * len(extras)
    order = sorted(range(len(extras)), key=extras.__getitem__)
    costs = list(map(extras.__getitem__, order))
    # in ascending order, a description whose cost and the smaller ones' reach past the room is at risk (alone
    # it does not fit, or the smaller ones, each at most its cost, step into its window): those are the ones
    # from the first whose running sum passes the room on
    first = bisect.bisect_right(list(itertools.accumulate(costs)), room)
    result = [False] * len(extras)
    for index in order[first:]:
        result[index] = True
    exact: dict[int, bool] = {}
    for index, cost in zip(order[:first], costs[:first], strict=True):
        if cost not in exact:
            # the few smallest descriptions come here; past EXACT_CHECKS distinct sizes the rest count as
            # at risk (information only: too many rather than too few)
            exact[cost] = len(exact) >= EXACT_CHECKS or _window_reached(
                [extras[other] for other in order if other != index], room, cost)
        result[index] = exact[cost]
    return result


def _window_reached(others: list[int], room: int, cost: int) -> bool:
    """Whether a subset of others sums into (room - cost, room]: reachable sums as the bits of an integer."""
    mask = (1 << (room + 1)) - 1
    reach = 1
    for value in others:
        if value <= room:
            reach = (reach | (reach << value)) & mask
    return (reach >> (room - cost + 1)) != 0


def dropped_at_least(extras: list[int], room: int) -> int:
    """How many descriptions go whatever the order of use: fewest when the largest go first."""
    total = sum(extras)
    count = 0
    for cost in sorted(extras, reverse=True):
        if total <= room:
            break
        total -= cost
        count += 1
    return count
