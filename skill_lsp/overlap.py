"""Overlapping descriptions: the skills one agent chooses from whose descriptions are so alike that the model cannot tell which applies (SK310), found without a model call.

A model picks a skill from its name and description alone, so two skills of one choice whose descriptions
claim the same requests leave it guessing. The choices (`choices_of`): an AgentDeck agent's `skills=[...]`, a
Claude session's `skills=[...]`, a subagent's `skills`, and every skill of one root a session loads whole (a
project's `.claude/skills`, a plugin's skills, `.agents/skills`).

What is compared, and why (docs/overlap.md has it with an example):

- **Words.** A description is lowercased and split into words (letters and digits); common English words and
  the words every skill description uses ("use", "when", "skill", "user", "asks"...) are dropped, and a plural
  is folded into its singular (`files` → `file`, `queries` → `query`). The terms of a description are its
  words and its pairs of adjacent words (`extract table`): pairs tell "merge pdf" from "split pdf" where words
  alone would not.
- **Rarity within the choice.** A term counts for a pair by how few skills of the choice hold it: fully when only
  the two do, less for each further skill (`weight`), nothing once more than `RARE` skills, or all of a small
  choice, hold it. A template's wording shared by a whole collection therefore makes no pair alike, and in a
  large choice only the rare terms are looked at: an inverted index of them gives the candidate pairs, so the
  skills are never compared all against all.
- **Score.** The rarity-weighted shared terms over the geometric mean of the two descriptions' numbers of terms
  (a cosine of their sets of terms in which a shared term weighs its rarity): 1 for two identical descriptions
  only these two skills use, near 0 for two that share only what every skill says. `THRESHOLD`, calibrated on
  the public repositories of the ecosystem check (docs/ecosystem.md), marks a pair alike.

Deterministic (no model, no randomness) and exact under edits: a description's change touches the pairs of that
skill and the pairs sharing a term whose count in the choice moved (`Choice.update`), at most `RARE`² / 2 pairs
per term.
"""

from __future__ import annotations

import difflib
import functools
import math
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from .codecalls import PyValue
from .index import AgentEntry, DefinitionEntry, Model, OptionsEntry, Owner, Root, SkillEntry
from .overlapterms import WORD, known_terms, terms_of, words_of

__all__ = ["RARE", "THRESHOLD", "Choice", "Overlap", "choices_of", "overlapping_pairs", "overlapping_skills", "skill_changed", "terms_of"]

# a term held by more skills of a choice than this tells no pair apart (and is not indexed)
RARE = 24
# a choice of at most this many skills has every pair judged (and is judged again whole after an edit)
SMALL = 24
# the score from which two descriptions are alike (calibrated: docs/ecosystem.md, "SK310")
THRESHOLD = 0.55
# the roots whose skills a runtime offers all together: a project's .claude/skills, a plugin's skills
# (every skill of an installed plugin), .agents/skills (Codex, VS Code) and a Codex plugin's skills
SESSION_ORIGINS = frozenset({"claude", "plugin", "spec", "codex-plugin"})

def weight(held: int, size: int) -> float:
    """How much a term held by `held` skills of a choice of `size` tells the two that share it apart from the
    rest: 1 when only the two hold it, falling like an inverse document frequency to 0 when every skill of
    the choice holds it, or more than RARE do."""
    if held <= 2:
        return 1.0
    top = min(size, RARE)
    if held >= top:
        return 0.0
    return math.log((top + 1) / held) / math.log((top + 1) / 2)


@functools.lru_cache(maxsize=256)
def _weights(size: int) -> list[float]:
    """weight() by the number of skills holding a term, for a choice of size skills (do not modify)."""
    return [weight(held, size) for held in range(max(min(size, RARE), 3))]


@dataclass(frozen=True)
class Overlap:
    """Two skills of one choice with alike descriptions: their score, the longest run of words both
    descriptions have (`phrase`, lowercased; empty when shorter than three words) and their shared rare
    words, rarest first."""

    first: SkillEntry
    second: SkillEntry
    score: float
    phrase: str
    words: tuple[str, ...]

    def other(self, skill: SkillEntry) -> SkillEntry:
        return self.second if skill is self.first else self.first

    def wording(self) -> str:
        """The shared wording as a message shows it."""
        if self.phrase:
            return f'"{self.phrase}"'
        return ", ".join(f"'{word}'" for word in self.words)


class _Counts(dict[str, int]):
    """The number of skills holding each term, counted when first asked for (a small choice asks about few)."""

    def __init__(self, terms: dict[int, frozenset[str]]) -> None:
        super().__init__()
        self.terms = terms

    def __missing__(self, term: str) -> int:
        found = self[term] = sum(term in terms for terms in self.terms.values())
        return found


class Choice:
    """The skills one agent chooses from, with the counts of their terms, an inverted index of the terms and
    the alike pairs, kept exact as descriptions change (`update`)."""

    def __init__(self, skills: Iterable[SkillEntry], label: str | None, owner: Owner | None = None,
                 root: Root | None = None) -> None:
        self._label = label  # "the skills of .claude/skills", "agent 'support'" (None: the owner's, when asked)
        self.owner = owner
        self.root = root
        members: dict[int, SkillEntry] = {}
        for skill in skills:
            members.setdefault(id(skill), skill)
        self.skills = members
        self.size = size = len(members)
        # (terms_of without a call for the descriptions it holds: all of a check's)
        self.terms: dict[int, frozenset[str]] = {key: known_terms(skill.description) or terms_of(skill.description)
                                                 for key, skill in members.items()}
        # term -> the number of skills holding it (a small choice counts a term when first asked)
        self.count: dict[str, int] = _Counts(self.terms) if size <= SMALL else Counter(
            chain.from_iterable(self.terms.values()))
        # the terms every skill of a small choice holds (weightless there): left out before counting (_judge_all)
        self.common: frozenset[str] = frozenset()
        # a term weighs something while fewer than `limit` skills hold it; its weight by that count
        self.limit = max(min(size, RARE), 3)
        self.weights = _weights(size)
        self.alike: dict[int, dict[int, Overlap]] = {}
        # a large choice's inverted index of the terms that weigh: term -> the skills holding it, made when first
        # needed (`_index`: an edit; a check never needs it, 11,000 entries at 10,000 skills)
        self.held: dict[str, set[int]] | None = None
        if size <= SMALL:  # every pair
            self.held = {}
            self._judge_all()
            return
        rare = {term for term, held in self.count.items() if 2 <= held < self.limit}
        # a skill is in an alike pair only if the weight of its rare terms, R, reaches THRESHOLD² × its number of
        # terms: the pair's shared weight S is at most R and at most the partner's number of terms |B|, so
        # THRESHOLD² |A| |B| <= S² <= R |B|
        candidates: dict[int, frozenset[str]] = {}  # a candidate -> its terms that weigh
        count, weights, square = self.count, self.weights, THRESHOLD ** 2
        for key, terms in self.terms.items():
            weighing = terms & rare
            # every weight is at most 1: too few rare terms cannot reach it, whatever they weigh
            least = square * len(terms) - 1e-9
            if len(weighing) >= least and math.fsum(weights[count[term]] for term in weighing) >= least:
                candidates[key] = weighing
        # the candidate pairs, those sharing a term that weighs, with the weight they share: only the pairs
        # that can reach the threshold are judged
        holding: dict[str, list[int]] = {}
        for key, weighing in candidates.items():
            for term in weighing:
                holding.setdefault(term, []).append(key)
        shared: dict[tuple[int, int], float] = {}
        for term, holders in holding.items():
            if len(holders) >= 2:
                part = weights[count[term]]
                ordered = sorted(holders)
                for index, a in enumerate(ordered):
                    for b in ordered[index + 1:]:
                        shared[a, b] = shared.get((a, b), 0.0) + part
        for (a, b), total in shared.items():
            if total >= (THRESHOLD - 1e-9) * math.sqrt(len(self.terms[a]) * len(self.terms[b])):
                self._judge(a, b)

    def _index(self) -> dict[str, set[int]]:
        """The inverted index of the terms that weigh (`held`), made now if not yet."""
        if self.held is None:
            held: dict[str, set[int]] = {}
            limit = self.limit
            rare = {term for term, count in self.count.items() if 2 <= count < limit}
            for key, terms in self.terms.items():
                for term in terms & rare:
                    held.setdefault(term, set()).add(key)
            self.held = held
        return self.held

    @property
    def label(self) -> str:
        if self._label is None:
            assert self.owner is not None
            self._label = owner_label(self.owner)
        return self._label

    def __contains__(self, skill: SkillEntry) -> bool:
        return self.skills.get(id(skill)) is skill

    def score(self, a: int, b: int) -> float:
        first, second = self.terms[a], self.terms[b]
        both = first & second
        if self.common:
            both -= self.common
        # every weight is at most 1: too few shared terms cannot reach the threshold, whatever they weigh
        norm = math.sqrt(len(first) * len(second))
        if not both or len(both) < THRESHOLD * norm - 1e-9:
            return 0.0
        # fsum: the same total in whatever order the shared terms come (an edited choice equals a fresh one)
        count, limit, weights = self.count, self.limit, self.weights
        return math.fsum(weights[held] for term in both if (held := count[term]) < limit) / norm

    def _judge_all(self) -> None:
        """Judge every pair of a small choice, none alike yet. A pair sharing too few terms besides those every
        skill holds to reach the threshold, whatever they weigh (score's first test), is not alike and is passed
        over without a score: most pairs. The common terms are among any pair's shared terms, so the pair shares
        at most the smaller one's number of terms less theirs (told without a set operation), and exactly the
        number of terms both hold less theirs."""
        terms = self.terms
        filled = [found for found in terms.values() if found]  # (a skill without terms scores 0 with any)
        if len(filled) < 2:
            return
        if len(filled) >= 3:
            # the terms every skill with terms holds: all of the choice's (weightless) or all but those without
            # (their weight, the same for each); no pair is alike when even the largest description, paired with
            # one as large, cannot reach the threshold with them weighing that and every other term 1 — lists of
            # templated descriptions (at 10,000 skills, 986 of the 1,000 agents' lists: _judge_all 10 -> 5 µs each)
            every = frozenset.intersection(*filled)
            held = len(filled)
            if held == self.size:
                self.common = every
            most = max(map(len, filled))
            part = self.weights[held] if held < self.limit else 0.0
            if len(every) * part + most - len(every) < (THRESHOLD - 1e-9) * most:
                return
        common = len(self.common)
        keys = sorted(terms)
        sizes = {key: len(found) for key, found in terms.items()}
        for index, a in enumerate(keys):
            size = sizes[a]
            for b in keys[index + 1:]:
                other = sizes[b]
                least = THRESHOLD * math.sqrt(size * other) - 1e-9
                if min(size, other) - common >= least and len(terms[a] & terms[b]) - common >= least:
                    self._judge(a, b)

    def _judge(self, a: int, b: int) -> bool:
        """Record whether a and b are alike; whether that (or what is said of it) changed."""
        score = self.score(a, b)
        before = self.alike.get(a, {}).get(b)
        if score < THRESHOLD:
            if before is None:
                return False
            del self.alike[a][b], self.alike[b][a]
            return True
        if str(self.skills[a].path) > str(self.skills[b].path):  # told in the same order in any model
            a, b = b, a
        wording = _shared_wording(self, a, b)
        # the same score may come with other wording: two shared words' weights can trade places (one more skill
        # holds one, one fewer the other), and the rarest is named first
        if before is not None and before.score == score and (before.phrase, before.words) == wording:
            return False
        overlap = Overlap(self.skills[a], self.skills[b], score, *wording)
        self.alike.setdefault(a, {})[b] = overlap
        self.alike.setdefault(b, {})[a] = overlap
        return True

    def partners(self, skill: SkillEntry) -> list[Overlap]:
        """The skill's alike pairs in this choice, best first."""
        found = self.alike.get(id(skill), {}) if skill in self else {}
        return sorted(found.values(), key=lambda overlap: (-overlap.score, str(overlap.other(skill).path)))

    def pairs(self) -> list[Overlap]:
        """Every alike pair, best first."""
        found = {id(overlap): overlap for partners in self.alike.values() for overlap in partners.values()}
        return sorted(found.values(), key=lambda overlap: (-overlap.score, str(overlap.first.path), str(overlap.second.path)))

    def update(self, skill: SkillEntry) -> set[SkillEntry]:
        """The skill's description changed: recount its terms and judge again every pair whose score may have
        moved; the skills whose alike pairs changed."""
        key = id(skill)
        if key not in self.terms:
            return set()
        old, new = self.terms[key], terms_of(skill.description)
        if old == new:  # the same terms, perhaps in other words: its pairs' shared phrase may be another
            return {self.skills[each] for other in list(self.alike.get(key, {})) if self._judge(key, other)
                    for each in (key, other)}
        if self.size <= SMALL:  # judged again whole
            was = {a: dict(partners) for a, partners in self.alike.items() if partners}
            self.terms[key] = new
            self.count = _Counts(self.terms)
            self.common = frozenset()
            self.alike = {}
            self._judge_all()
            now = {a: partners for a, partners in self.alike.items() if partners}
            return {self.skills[a] for a in was.keys() | now.keys() if was.get(a) != now.get(a)}
        top = self.limit
        touched: set[tuple[int, int]] = {(key, other) for other in self.alike.get(key, {})}
        count, held = self.count, self._index()
        for term in old ^ new:
            before = count[term]
            after = before + (1 if term in new else -1)
            holders: set[int] | None = None
            if before < top or after < top:
                # it weighs, before or after: the pairs holding it are judged again
                holders = self._holders(term, before, term in old, key)
                others = sorted(holders - {key})
                touched.update((a, b) for index, a in enumerate(others) for b in others[index + 1:])
            if after:
                count[term] = after
            else:
                del count[term]
            if 2 <= after < top:
                assert holders is not None
                held[term] = (holders | {key}) if term in new else (holders - {key})
            else:
                held.pop(term, None)
        self.terms[key] = new
        # the skill's own candidates with its new terms
        for term in new:
            holders = held.get(term)
            if holders is not None:
                touched.update((key, other) for other in holders if other != key)
        changed: set[SkillEntry] = set()
        for a, b in touched:
            if self._judge(a, b):
                changed.add(self.skills[a])
                changed.add(self.skills[b])
        return changed


    def _holders(self, term: str, count: int, ours: bool, key: int) -> set[int]:
        """The skills holding term (count of them; ours: whether key does) — the index has the terms that
        weigh, the others are looked for."""
        found = self._index().get(term)
        if found is not None:
            return set(found)
        if count == 0 or (count == 1 and ours):
            return {key} if ours else set()
        return {other for other, terms in self.terms.items() if term in terms}


def _shared_wording(choice: Choice, a: int, b: int) -> tuple[str, tuple[str, ...]]:
    first, second = choice.skills[a].description or "", choice.skills[b].description or ""
    left, right = WORD.findall(first.lower()), WORD.findall(second.lower())
    match = difflib.SequenceMatcher(None, left, right, autojunk=False).find_longest_match(0, len(left), 0, len(right))
    phrase = " ".join(left[match.a: match.a + match.size]) if match.size >= 3 else ""
    order = words_of(first)
    shared = set(order) & set(words_of(second))
    weights = {word: weight(choice.count[word], choice.size) for word in shared}
    rarest = sorted((word for word in shared if weights[word] > 0), key=lambda word: (-weights[word], order.index(word)))
    return phrase, tuple(rarest[:5])


# -- the choices of a model --------------------------------------------------------------------------------------


def listed_skills(owner: Owner) -> list[tuple[PyValue, SkillEntry]]:
    """The entries of an agent's, session's or subagent's `skills` list with the skill each names (the first
    entry naming a skill; unknown names left out). A session with `skills="all"` or none lists nothing."""
    value = owner.call.keyword("skills")
    if value is None or value.kind not in ("list", "tuple"):
        return []
    found: list[tuple[PyValue, SkillEntry]] = []
    seen: set[int] = set()
    resolve = owner.registry.session_lookup if isinstance(owner, OptionsEntry) else owner.resolver()
    for item in value.items:
        text = item.text
        if text is None or item.kind != "str":
            continue
        skill = resolve(text)
        if skill is not None and (key := id(skill)) not in seen:
            seen.add(key)
            found.append((item, skill))
    return found


def owner_label(owner: Owner) -> str:
    if isinstance(owner, AgentEntry):
        return f"the agent '{owner.display_name}'"
    if isinstance(owner, DefinitionEntry):
        return f"the subagent '{owner.display_name}'"
    return f"the session of {owner.call.assigned_to or 'the options'} (line {owner.call.span.start.line + 1})"


class Choices:
    """A model's choices, each made when first asked for and kept exact through edits (`skill_changed`)."""

    def __init__(self, model: Model) -> None:
        self.model = weakref.ref(model)
        self.lists: dict[int, tuple[Owner, Choice]] = {}
        self._roots: dict[Path, Choice] | None = None
        self._involved: set[int] | None = None

    def involved(self) -> set[int]:
        """overlapping_skills': every choice is made the first time."""
        if self._involved is None:
            model = self.model()
            found: set[int] = set()
            owners: tuple[Owner, ...] = (*model.agents, *model.options, *model.definitions) if model is not None else ()
            for choice in (*self.roots().values(), *map(self.of_owner, owners)):
                if choice.alike:
                    found.update(key for key, partners in choice.alike.items() if partners)
            self._involved = found
        return self._involved

    def of_owner(self, owner: Owner) -> Choice:
        kept = self.lists.get(id(owner))
        if kept is not None and kept[0] is owner:
            return kept[1]
        model = self.model()
        if model is not None and len(self.lists) > 2 * (len(model.agents) + len(model.options) + len(model.definitions)) + 8:
            # the owners kept are alive, so an id of the model's owners that is kept is that owner
            current = {id(each) for each in (*model.agents, *model.options, *model.definitions)}
            self.lists = {key: kept for key, kept in self.lists.items() if key in current}
        choice = Choice((skill for _, skill in listed_skills(owner)), None, owner=owner)
        self.lists[id(owner)] = (owner, choice)
        if self._involved is not None:
            self._involved.update(key for key, partners in choice.alike.items() if partners)
        return choice

    def roots(self) -> dict[Path, Choice]:
        if self._roots is None:
            model = self.model()
            grouped: dict[Path, tuple[Root, list[SkillEntry]]] = {}
            last: Root | None = None
            members: list[SkillEntry] = []
            for skill in model.skills.values() if model is not None else ():
                root = skill.root
                if root is not None and root.origin in SESSION_ORIGINS and not skill.external and not skill.misnamed:
                    if root is not last:  # (a root's skills mostly come one after another)
                        last, members = root, grouped.setdefault(root.path, (root, []))[1]
                    members.append(skill)
            self._roots = {path: Choice(skills, f"the skills of {_shown(root)}", root=root)
                           for path, (root, skills) in grouped.items() if len(skills) > 1}
        return self._roots

    def of_skill(self, skill: SkillEntry) -> list[Choice]:
        """The choices holding the skill: its root's, and the lists of the agents that list it."""
        model = self.model()
        found = []
        root = self.roots().get(skill.root.path) if skill.root is not None else None
        if root is not None and skill in root:
            found.append(root)
        if model is not None:
            owners = {id(owner): owner for _, _, owner in model.agents_using(skill)}
            found += [choice for owner in owners.values() if skill in (choice := self.of_owner(owner))]
        return found


def _shown(root: Root) -> str:
    return f"{root.path.parent.name}/{root.path.name}/"


_CHOICES: dict[int, Choices] = {}


def choices_of(model: Model) -> Choices:
    """The model's choices (kept while the model lives)."""
    found = _CHOICES.get(id(model))
    if found is None or found.model() is not model:
        found = _CHOICES[id(model)] = Choices(model)
        weakref.finalize(model, _CHOICES.pop, id(model), None)
    return found


def overlapping_skills(model: Model) -> set[int]:
    """The skills (by identity) alike another in some choice of the model, and perhaps a few more (a skill
    edited since, an agent's list since replaced): SK310's only candidates on SKILL.md files."""
    return choices_of(model).involved()


def overlapping_pairs(model: Model, owner: Owner) -> list[Overlap]:
    """The alike pairs among the skills one agent, session or subagent lists, best first: for `skill-lsp
    report` and the skills view. (A session with `skills="all"` lists none: its project's root choices are
    `choices_of(model).roots()`.)"""
    return choices_of(model).of_owner(owner).pairs()


def skill_changed(model: Model, skill: SkillEntry, old_description: str | None, old_key: str,
                  old_name: str | None) -> set[Path]:
    """After a SKILL.md edit (its facts already the new ones, its registries' keys moved): the files whose SK310
    findings may have changed — the skills whose alike pairs changed and the lists holding them."""
    renamed = {old_key, skill.key, old_name or "", skill.name or ""} - {""} if (old_key, old_name) != (
        skill.key, skill.name) else set()
    kept = _CHOICES.get(id(model))
    if kept is None or kept.model() is not model:
        return set()
    affected: set[Path] = set()
    if renamed:
        # the lists naming it before or after resolve other skills now: made again when next asked for
        owners = {id(owner) for name in renamed for _, _, owner in model.listings.get(name, [])}
        for key, (owner, choice) in list(kept.lists.items()):
            if key in owners or skill in choice:
                affected.add(owner.path)
                affected |= {member.path for member in choice.skills.values()}
                del kept.lists[key]
        for owner in (owner for name in renamed for _, _, owner in model.listings.get(name, [])):
            affected.add(owner.path)
            affected |= {member.path for member in kept.of_owner(owner).skills.values()}
        # its partners in its root's choice name it by its new key
        for choice in (kept._roots or {}).values():
            affected |= {overlap.other(skill).path for overlap in choice.partners(skill)}
    if old_description == skill.description:
        return affected
    choices = [choice for _, choice in kept.lists.values()]
    if kept._roots is not None:
        choices += kept._roots.values()
    for choice in choices:
        if skill in choice:
            moved = choice.update(skill)
            if moved:
                if kept._involved is not None:
                    kept._involved.update(id(member) for member in moved)
                affected |= {member.path for member in moved}
                if choice.owner is not None:
                    affected.add(choice.owner.path)
    return affected
