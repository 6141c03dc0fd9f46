""""Did you mean" over thousands of names: exactly difflib's answer, and kept exact as skills are renamed."""

from __future__ import annotations

import difflib
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_lsp.nearest import NameIndex, close_matches, may_reach
from skill_lsp.rules.report import closest
from skill_lsp.server.session import Session

from .helpers import write_files

WORDS = ["parse", "query", "render", "ticket", "index", "résumé", "Draft", "a", "ab", "-", "0", "07", "x" * 40]
name_strategy = st.lists(st.sampled_from(WORDS), min_size=0, max_size=4).map("-".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(name_strategy, max_size=60), name_strategy, st.integers(1, 4), st.sampled_from([0.0, 0.3, 0.6, 0.9]))
def test_close_matches_is_difflib(choices: list[str], word: str, count: int, cutoff: float) -> None:
    unique = list(dict.fromkeys(choices))
    assert close_matches(word, unique, count, cutoff) == difflib.get_close_matches(word, unique, count, cutoff)


@settings(max_examples=500, deadline=None)
@given(name_strategy, name_strategy)
def test_may_reach_never_turns_away_a_name_difflib_accepts(word: str, choice: str) -> None:
    if difflib.SequenceMatcher(None, choice, word).ratio() >= 0.6:
        assert may_reach(choice, word)


@pytest.mark.slow
def test_close_matches_is_difflib_over_a_large_registry() -> None:
    rng = random.Random(7)
    names = sorted({f"{rng.choice(WORDS[:6])}-{rng.choice(WORDS[:6])}-{rng.randrange(10**5):05d}" for _ in range(5000)})
    for _ in range(50):
        word = rng.choice(names)
        word = word[: rng.randrange(len(word))] + rng.choice("xyz-0") + word[rng.randrange(len(word)) :]
        assert close_matches(word, names, 3) == difflib.get_close_matches(word, names, 3, 0.6)


def test_name_index_follows_renames() -> None:
    index = NameIndex(["Refund", "refund", "quote-fare"])
    assert index.closest("refnd") == ["refund"]  # of two spellings, the greatest (as for sorted names)
    index.discard("refund")
    assert index.closest("refnd") == ["Refund"]
    index.discard("Refund")
    index.add("quote-fares")
    assert index.closest("quote-far") == ["quote-fare", "quote-fares"]
    assert index.closest("refnd") == [] == closest("refnd", ["quote-fare"])


def test_name_index_answers_a_name_again_without_searching_until_the_names_change(monkeypatch) -> None:
    from skill_lsp import nearest

    searched: list[str] = []
    real = nearest.close_matches

    def counting(word: str, choices, count: int, cutoff: float = 0.6) -> list[str]:
        searched.append(word)
        return real(word, choices, count, cutoff)

    monkeypatch.setattr(nearest, "close_matches", counting)
    index = NameIndex(["refund", "quote-fare"])
    first = index.closest("refnd")
    first.append("mutated")  # a caller's list is its own
    assert index.closest("refnd") == ["refund"] and searched == ["refnd"]
    index.add("refunds")
    assert index.closest("refnd") == ["refund", "refunds"] and searched == ["refnd", "refnd"]
    index.discard("refunds")
    assert index.closest("refnd") == ["refund"] and len(searched) == 3


# -- incremental == fresh with a registry large enough for the "did you mean" lists to be full ------

SKILLS = [f"{verb}-{noun}-{number}" for verb in ("parse", "render", "index") for noun in ("query", "ticket")
          for number in range(40)]  # 240 names


def _agent(listed: list[str]) -> str:
    names = ", ".join(f'"{name}"' for name in listed)
    return f'from agentdeck import Agent\n\nagent = Agent(name="a", instructions="x", skills=[{names}])\n'


@pytest.mark.parametrize("seed", range(4))
def test_renames_in_a_large_registry_keep_suggestions_exact(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    files = {f".agentdeck/skills/{name}/SKILL.md": f"---\nname: {name}\ndescription: Does {name}.\n---\n\nSteps.\n"
             for name in SKILLS}
    misspelt = ["parse-qery-1", "render-tiket-2", "index-query-4O", "parse-query-1x", "Parse-Query-2"]
    for number in range(3):
        files[f"agents/a{number}/agent.py"] = _agent(rng.sample(misspelt + SKILLS[:5], 4))
    write_files(tmp_path, files)
    live = Session([tmp_path])
    live.full_analysis()
    texts: dict[Path, str] = {}
    for _ in range(25):
        name = rng.choice(SKILLS[:60])
        path = tmp_path / ".agentdeck/skills" / name / "SKILL.md"
        label = rng.choice([name, name + "x", rng.choice(misspelt), rng.choice(misspelt).upper(), name.replace("-", "_")])
        texts[path] = f"---\nname: {label}\ndescription: Does {name}.\n---\n\nSteps.\n"
        live.set_text(path, texts[path])
        live.reanalyse(path)
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    fresh = Session([tmp_path])
    fresh.full_analysis()
    assert _messages(live) == _messages(fresh)
    assert any(f.code == "AD101" and len(f.data["closest"]) == 3 for findings in fresh.findings.values() for f in findings)  # type: ignore[arg-type]


def _messages(session: Session) -> dict[Path, list[str]]:
    return {path: [f"{f.code} {f.span.start.line}:{f.span.start.column} {f.message}" for f in findings]
            for path, findings in sorted(session.findings.items())}
