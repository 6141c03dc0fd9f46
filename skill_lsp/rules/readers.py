"""What the frontmatter rules ask of one set of runtimes, worked out once per set (every skill of a root shares its runtimes' tuple) instead of once per skill."""

from __future__ import annotations

from ..runtimes import FieldSpec, Runtime

Specs = list[tuple[Runtime, FieldSpec]]


class Readers:
    """The runtimes that read a skill's frontmatter, and the facts of theirs every skill's rules consult: whether
    Claude Code or the specification is among them, their naming rules, the shortest description limit of the
    runtimes other than Claude Code (whose cap is the project's), and who reads each key."""

    __slots__ = ("_keys", "claude", "description_limit", "name_rules", "runtimes", "spec")

    def __init__(self, runtimes: tuple[Runtime, ...]) -> None:
        self.runtimes = runtimes
        self.claude = any(each.key == "claude-code" for each in runtimes)
        self.spec = any(each.key == "spec" for each in runtimes)
        self.name_rules = tuple(each.name_rule for each in runtimes if each.name_rule is not None)
        limits = [each.description_limit for each in runtimes
                  if each.key != "claude-code" and each.description_limit is not None]
        self.description_limit = min(limits) if limits else None
        self._keys: dict[str, tuple[Specs, bool]] = {}

    def of_key(self, key: str) -> tuple[Specs, bool]:
        """Each runtime that reads key with the field it reads it as (never changed by a caller), and whether
        none of them knows the key at all (an unknown key: SK111)."""
        found = self._keys.get(key)
        if found is None:
            specs = [(each, spec) for each in self.runtimes if (spec := each.field(key)) is not None]
            found = specs, not specs and not any(each.knows(key) for each in self.runtimes)
            if len(self._keys) >= 1024:  # an author's own keys are any text: a bound on what is kept
                self._keys.clear()
            self._keys[key] = found
        return found


# id of a runtimes' tuple -> its Readers (which holds the tuple, so that the id stays its own)
_BY_TUPLE: dict[int, Readers] = {}


def readers_of(runtimes: tuple[Runtime, ...]) -> Readers:
    """The Readers of a tuple of runtimes, made once for each tuple (runtimes.discovering gives a root's
    skills the same one)."""
    found = _BY_TUPLE.get(id(runtimes))
    if found is None or found.runtimes is not runtimes:
        found = Readers(runtimes)
        if len(_BY_TUPLE) >= 64:
            _BY_TUPLE.clear()
        _BY_TUPLE[id(runtimes)] = found
    return found
