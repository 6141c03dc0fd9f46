"""Which calls count: resolution through the file's imports, and which Deck an Agent belongs to."""

from __future__ import annotations

import pytest

from .helpers import codes, one, skill_md, span_of, where

SKILL = {".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request")}


# -- AgentDeck calls through every import form ---------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        'from agentdeck import Agent as A\n\nbooking = A(name="Booking", skills=["nope"])\n',
        'import agentdeck as ad\n\nbooking = ad.Agent(name="Booking", skills=["nope"])\n',
        'import agentdeck\n\nbooking = agentdeck.Agent(name="Booking", skills=["nope"])\n',
        'from agentdeck import *\n\nbooking = Agent(name="Booking", skills=["nope"])\n',
        'from agentdeck.agents import Agent\n\nbooking = Agent(name="Booking", skills=["nope"])\n',
        'from agentdeck import (\n    Deck,\n    Agent as DeckAgent,\n)\n\nbooking = DeckAgent(name="Booking", skills=["nope"])\n',
    ],
    ids=["from-as", "import-as", "import", "star", "submodule", "parenthesized"],
)
def test_agentdeck_agent_through_imports(check_project, source):
    findings = check_project({**SKILL, "agent.py": source})
    finding = one(findings, "AD101")
    assert where(finding) == span_of(source, '"nope"')


@pytest.mark.parametrize(
    "source",
    [
        'from claude_agent_sdk import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(skills=["shop:*"])\n',
        'from claude_agent_sdk import ClaudeAgentOptions as Options\n\noptions = Options(skills=["shop:*"])\n',
        'import claude_agent_sdk as sdk\n\noptions = sdk.ClaudeAgentOptions(skills=["shop:*"])\n',
        'import claude_agent_sdk\n\noptions = claude_agent_sdk.ClaudeAgentOptions(skills=["shop:*"])\n',
        'from claude_agent_sdk import *\n\noptions = ClaudeAgentOptions(skills=["shop:*"])\n',
    ],
    ids=["from", "from-as", "import-as", "import", "star"],
)
def test_claude_options_through_imports(check_project, source):
    finding = one(check_project({"desk.py": source}), "CL101")
    assert where(finding) == span_of(source, '"shop:*"')


# -- other frameworks' Agent is never touched ----------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        'from crewai import Agent\n\nresearcher = Agent(role="Researcher", skills=["nope"])\n',
        'from agents import Agent\n\nassistant = Agent(name="Assistant", skills=["nope"])\n',
        'import crewai\n\nresearcher = crewai.Agent(role="Researcher", skills=["nope"])\n',
        'from agentdeck import Deck\n\n\nclass Agent:\n    def __init__(self, **kwargs):\n        self.kwargs = kwargs\n\n\n'
        'helper = Agent(name="Helper", skills=["nope"])\n',
        'import agentdeck\n\n\ndef Agent(**kwargs):\n    return kwargs\n\n\nhelper = Agent(name="Helper", skills=["nope"])\n',
        'Agent = object\nhelper = Agent(name="Helper", skills=["nope"])  # mentions agentdeck in a comment only\n',
        'from my_app.claude_agent_sdk_shim import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(skills="x")\n',
    ],
    ids=["crewai", "openai-agents", "crewai-module", "local-class", "local-function", "no-import", "lookalike-module"],
)
def test_other_agents_are_never_flagged(check_project, source):
    assert check_project({**SKILL, "agent.py": source}) == []


def test_framework_agent_and_other_agent_in_one_file(check_project):
    source = '''
from crewai import Agent as CrewAgent
from agentdeck import Agent

crew = CrewAgent(role="Researcher", skills=["nope"])
booking = Agent(name="Booking", skills=["nope"])
'''
    finding = one(check_project({**SKILL, "agent.py": source}), "AD101")
    assert where(finding) == span_of(source, '"nope"', occurrence=2)


# -- Deck membership -------------------------------------------------------------------------------------


def test_membership_in_the_same_file(check_project):
    # the Deck lists the agent's variable and has no skills=: AD102, not an unknown name
    source = '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", skills=["parse-request"])
deck = Deck(agents=[booking])
'''
    assert codes(check_project({**SKILL, "agent.py": source})) == ["AD102"]


def test_membership_of_an_inline_agent(check_project):
    source = '''
from agentdeck import Agent, Deck

deck = Deck(agents=[Agent(name="Booking", skills=["parse-request", "quote-fare"])], skills="./skills")
'''
    findings = check_project({"app/deck.py": source, "app/skills/quote-fare/SKILL.md": skill_md("quote-fare"), **SKILL})
    finding = one(findings, "AD101")
    assert where(finding) == span_of(source, '"parse-request"')


@pytest.mark.parametrize("import_line", ["from .booking import booking", "from pkg.booking import booking"])
def test_membership_through_an_import_from_another_file(check_project, import_line):
    booking = '''
from agentdeck import Agent

booking = Agent(name="Booking", skills=["quote-fare", "parse-request"])
'''
    deck = f'''
from agentdeck import Deck
{import_line}

deck = Deck(agents=[booking], skills="./skills")
'''
    findings = check_project({
        **SKILL,  # parse-request is in the project default root, not in the Deck's root
        "pkg/__init__.py": "",
        "pkg/booking.py": booking,
        "pkg/deck.py": deck,
        "pkg/skills/quote-fare/SKILL.md": skill_md("quote-fare"),
    })
    finding = one(findings, "AD101")
    assert finding["path"] == "pkg/booking.py"
    assert where(finding) == span_of(booking, '"parse-request"')
    # the Deck's path relative to the current directory, as the finding's own
    assert f"Deck at pkg/deck.py:{span_of(deck, 'Deck(agents')[0]} has" in finding["message"]


def test_same_variable_name_in_another_module_is_not_a_member(check_project):
    # deck.py lists its own `booking`; the agent in other.py is in no Deck
    findings = check_project({
        **SKILL,
        "pkg/deck.py": '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", skills=["parse-request"])
deck = Deck(agents=[booking])
''',
        "pkg/other.py": '''
from agentdeck import Agent

booking = Agent(name="Other", skills=["parse-request"])
''',
    })
    assert [(f["path"], f["code"]) for f in findings] == [("pkg/deck.py", "AD102")]


def test_agent_in_no_deck_is_checked_against_the_default_root_and_every_deck_root(check_project):
    lone = '''
from agentdeck import Agent

lone = Agent(name="Lone", skills=["parse-request", "quote-fare", "missing-one"])
'''
    findings = check_project({
        **SKILL,
        "lone.py": lone,
        "other/deck.py": 'from agentdeck import Deck\n\ndeck = Deck(agents=[], skills="./skills")\n',
        "other/skills/quote-fare/SKILL.md": skill_md("quote-fare"),
    })
    finding = one(findings, "AD101")
    assert where(finding) == span_of(lone, '"missing-one"')
    assert ".agentdeck/skills" in finding["message"] and "other/skills" in finding["message"]


def test_agent_in_a_deck_is_not_checked_against_other_decks(check_project):
    files = {
        "a/deck.py": '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", skills=["quote-fare"])
deck = Deck(agents=[booking], skills="./skills")
''',
        "a/skills/parse-request/SKILL.md": skill_md("parse-request"),
        "b/deck.py": 'from agentdeck import Deck\n\ndeck = Deck(agents=[], skills="./skills")\n',
        "b/skills/quote-fare/SKILL.md": skill_md("quote-fare"),
    }
    # quote-fare exists, but only under the other Deck's root
    finding = one(check_project(files), "AD101")
    assert finding["path"] == "a/deck.py"
    assert "'quote-fare'" in finding["message"]


def test_agent_in_two_decks_is_checked_against_both(check_project):
    source = '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", skills=["parse-request"])
small = Deck(agents=[booking], skills="./small")
large = Deck(agents=[booking], skills=["./small", "./large"])
'''
    findings = check_project({
        "app/decks.py": source,
        "app/large/parse-request/SKILL.md": skill_md("parse-request"),
        "app/small/quote-fare/SKILL.md": skill_md("quote-fare"),
    })
    finding = one(findings, "AD101")
    assert f"the Deck at line {span_of(source, 'small = Deck')[0]} has" in finding["message"]  # the Deck that lacks it


# -- a file's imports, parsed alone (completion in a file of megabytes) ----------------------------


IMPORT_FORMS = [
    'import os\nfrom agentdeck import (\n    Deck,\n    Agent as DeckAgent,\n)\n\nx = DeckAgent(name="B", skills=["a"])\n',
    'import agentdeck as ad, sys\n\ndef build():\n    from claude_agent_sdk import ClaudeAgentOptions as O\n    return O(skills=["a"])\n',
    'try:\n    from agentdeck import Agent\nexcept ImportError:  # the word import in a comment\n    Agent = None\n',
    'from agentdeck \\\n    import Agent\nnote = "require(x) and import y"\n',
    'from agentdeck \\\r\n    import Agent\r\nx = Agent(name="B", skills=["a"])\r\n',
]
SCRIPT_FORMS = [
    'import { query, type AgentDefinition } from "@anthropic-ai/claude-agent-sdk";\n\nquery({ prompt: "x", options: { skills: ["a"] } });\n',
    'import {\n  query,\n} from "@anthropic-ai/claude-agent-sdk";\nconst other = require("./other");\n',
    'const { query } = require("@anthropic-ai/claude-agent-sdk");\nquery({ prompt: "x", options: {} });\n',
]


@pytest.mark.parametrize(("name", "source"), [*(("agent.py", form) for form in IMPORT_FORMS),
                                               *(("agent.ts", form) for form in SCRIPT_FORMS)])
def test_the_import_statements_alone_say_what_the_whole_file_says(name, source):
    """Completion in a file of megabytes resolves callees from a parse of its import statements alone
    (session.imports_of): that parse binds the same names to the same frameworks, on the same lines."""
    from pathlib import PurePath

    from skill_lsp.codefiles import import_statements, parse_code

    path = PurePath(name)
    padded = source + "".join(f"value_{number} = {number}\n" for number in range(2000))
    alone = import_statements(padded)
    whole, imports = parse_code(padded, path), parse_code(alone, path)
    assert imports.bindings == whole.bindings and imports.frameworks == whole.frameworks
    assert whole.frameworks, "the form names no framework: nothing was tested"
    kept = alone.split("\n")
    for number, line in enumerate(padded.split("\n")):
        if number < len(kept) and kept[number]:
            assert kept[number] == line.strip(), (number, line)


def test_a_large_file_s_imports_are_those_of_its_text_not_of_its_last_parse(tmp_path):
    """Completion right after a file of megabytes is opened: the last parse kept for it may be of the
    file on disk (the index's), which lacks an alias the editor's text has. The imports completion
    reads are those of the text it completes in, whichever parse is kept."""
    from skill_lsp.server.session import IMPORTS_FRESH_CHARS, Session

    root = tmp_path / "proj"
    (root / ".agentdeck/skills/demo").mkdir(parents=True)
    (root / ".agentdeck/skills/demo/SKILL.md").write_text("---\nname: demo\ndescription: Demo.\n---\n\nSteps.\n")
    agent = root / "agent.py"
    filler = "".join(f"value_{number} = {number}  # some padding for a file of megabytes\n"
                     for number in range(IMPORTS_FRESH_CHARS // 40))
    on_disk = "from agentdeck import Agent\n\n" + filler
    agent.write_text(on_disk)
    session = Session([root])
    session.full_analysis()
    kept = session.workspace.last_parse(agent)
    assert kept is not None and kept[0] == on_disk  # the index parsed the file on disk
    typed = "from agentdeck import Agent as DeckAgent\n\n" + filler + 'x = DeckAgent(name="X", skills=["d"])\n'
    assert "DeckAgent" in session.imports_of(agent, typed).bindings
    assert session.imports_of(agent, on_disk) is kept[1]  # the same imports: the last parse serves
