"""Every skill root of SPEC §2, what is never walked, and symlinks out of the project."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import codes, counting_forks, having, one, skill_md, span_of, wait_for, where, write_files

BROKEN = "no frontmatter at all\n"  # SK101 wherever it is discovered


def deck_agent(skills_expr: str, names: str = '["alpha", "beta"]', header: str = "") -> str:
    return f'''
import os
from pathlib import Path
from agentdeck import Agent, Deck
{header}
booking = Agent(name="Booking", instructions="Help.", skills={names})
deck = Deck(agents=[booking], skills={skills_expr})
'''


# -- AgentDeck roots ----------------------------------------------------------------------------


def test_project_default_root_with_from_project(check_project):
    source = '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", instructions="Help.", skills=["parse-request", "quote-fare"])
deck = Deck.from_project(agents=[booking])
'''
    findings = check_project({
        ".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request"),
        ".agentdeck/agents/booking/agent.py": source,
    })
    finding = one(findings, "AD101")
    assert where(finding) == span_of(source, '"quote-fare"')
    assert ".agentdeck/skills" in finding["message"]


def test_from_project_finds_the_project_above_a_nested_agent(check_project):
    source = '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", instructions="Help.", skills=["parse-request"])
deck = Deck.from_project(agents=[booking])
'''
    assert check_project({
        "services/booking/.agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request"),
        "services/booking/.agentdeck/agents/booking/agent.py": source,
    }) == []


@pytest.mark.parametrize(
    ("skills_expr", "header"),
    [
        ('["./skills", "./more"]', ""),
        ('("./skills", "./more")', ""),
        ('[Path("skills"), Path("more")]', ""),
        ('[Path(__file__).parent / "skills", Path(__file__).parent / "more"]', ""),
        ('[Path(__file__).resolve().parent / "skills", "more"]', ""),
        ('[os.path.join(os.path.dirname(__file__), "skills"), "more"]', ""),
        ('[SKILLS_DIR, "more"]', 'SKILLS_DIR = Path(__file__).parent / "skills"'),
    ],
)
def test_deck_roots_of_every_static_form(check_project, skills_expr, header):
    files = {
        "app/agent.py": deck_agent(skills_expr, header=header),
        "app/skills/alpha/SKILL.md": skill_md("alpha"),
        "app/more/beta/SKILL.md": skill_md("beta"),
    }
    assert check_project(files) == []


@pytest.mark.parametrize("skills_expr", ['"./skills"', 'Path("skills")', 'Path(__file__).parent / "skills"'])
def test_deck_root_relative_to_the_calling_file_first(check_project, skills_expr):
    source = deck_agent(skills_expr)
    findings = check_project({
        "app/agent.py": source,
        "app/skills/alpha/SKILL.md": skill_md("alpha"),
        "skills/beta/SKILL.md": skill_md("beta"),  # the workspace's skills/, not the Deck's
    })
    assert [where(f) for f in having(findings, "AD101")] == [span_of(source, '"beta"')]


def test_deck_root_falls_back_to_the_workspace(check_project):
    # app/shared/skills does not exist; <workspace>/shared/skills does
    assert check_project({
        "app/agent.py": deck_agent('"shared/skills"'),
        "shared/skills/alpha/SKILL.md": skill_md("alpha"),
        "shared/skills/beta/SKILL.md": skill_md("beta"),
    }) == []


def test_deck_root_with_any_directory_name_is_a_root(project):
    project.write({
        "app/agent.py": deck_agent('"./prompts"', names='["alpha"]'),
        "app/prompts/alpha/SKILL.md": skill_md("alpha"),
    })
    assert project.check() == []
    # without the Deck nothing discovers it
    project.path("app/agent.py").unlink()
    assert codes(project.check()) == ["SK302"]


def test_deck_root_skills_get_the_agentdeck_profile(check_project):
    findings = check_project({
        "app/agent.py": deck_agent('"./prompts"', names='["alpha"]'),
        "app/prompts/alpha/SKILL.md": skill_md(name=None, extra="when_to_use: always"),
    })
    # AgentDeck's: the name is required; when_to_use is no typo of an AgentDeck field (information, was a warning)
    assert sorted((f["code"], f["severity"]) for f in findings) == [("SK105", "error"), ("SK111", "information")]


def test_deck_root_is_direct_child_only(check_project):
    findings = check_project({
        "app/agent.py": deck_agent('"./prompts"', names='["alpha"]'),
        "app/prompts/group/alpha/SKILL.md": skill_md("alpha"),
    })
    assert sorted(codes(findings)) == ["AD101", "SK302"]
    assert "app/prompts/alpha/SKILL.md" in one(findings, "SK302")["message"]


# -- Claude roots ------------------------------------------------------------------------------------

DESK = '''
from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(skills={skills}{extra})
'''


def desk(skills: str, extra: str = "") -> str:
    return DESK.format(skills=skills, extra=extra)


def test_claude_project_root(check_project):
    findings = check_project({
        ".claude/skills/order-status/SKILL.md": skill_md(name=None, extra="when_to_use: Asked about an order."),
        "desk.py": desk('["order-status", "refunds"]'),
    })
    assert [(f["code"], f["path"]) for f in findings] == [("CL103", "desk.py")]


def test_claude_add_dirs(check_project):
    files = {"extra/.claude/skills/refund-policy/SKILL.md": skill_md("refund-policy")}
    assert check_project({**files, "desk.py": desk('["refund-policy"]', ', add_dirs=["extra"]')}) == []
    assert codes(check_project({**files, "desk.py": desk('["refund-policy"]')})) == ["CL103"]


def test_claude_add_dirs_with_path_objects(check_project):
    source = "from pathlib import Path\n" + desk('["refund-policy"]', ', add_dirs=[Path(__file__).parent / "extra"]')
    assert check_project({"extra/.claude/skills/refund-policy/SKILL.md": skill_md("refund-policy"), "desk.py": source}) == []


PLUGIN = {
    "plugins/shop-plugin/.claude-plugin/plugin.json": '{"name": "shop", "version": "1.0.0"}\n',
    "plugins/shop-plugin/skills/refund/SKILL.md": skill_md("refund"),
}


def test_local_plugin_skills_carry_the_plugin_name(check_project):
    # the session filter matches a canonical name or a ':name' suffix of it (TypeScript SDK 0.3.335, sdk.d.ts):
    # "refund" loads shop:refund, "shop:refnd" nothing
    source = desk('["shop:refund", "refund", "shop:refnd"]', ', plugins=[{"type": "local", "path": "./plugins/shop-plugin"}]')
    findings = check_project({**PLUGIN, "desk.py": source})
    finding = one(findings, "CL103")
    assert where(finding) == span_of(source, '"shop:refnd"')
    assert "did you mean 'shop:refund'" in finding["message"]


def test_a_plugin_skill_listed_by_its_bare_name_is_found_by_the_editor_too(project):
    source = desk('["refund"]', ', plugins=[{"type": "local", "path": "./plugins/shop-plugin"}]')
    project.write({**PLUGIN, "desk.py": source})
    assert project.check() == []
    shown = project.run("disclosure", "desk.py")
    assert "refund" in shown.out


def test_local_plugin_without_manifest_uses_the_directory_name(check_project):
    source = desk('["tools:lint"]', ', plugins=[{"type": "local", "path": "plugins/tools"}]')
    assert check_project({"plugins/tools/skills/lint/SKILL.md": skill_md("lint"), "desk.py": source}) == []


def test_plugin_skills_are_claude_skills(check_project):
    findings = check_project({
        **PLUGIN,
        "plugins/shop-plugin/skills/refund/SKILL.md": skill_md("Refund desk", extra="effort: high"),
    })
    assert [(f["code"], f["severity"]) for f in findings] == [("SK108", "information")]


def test_user_skills_dir_from_the_command_line(project, tmp_path):
    user = tmp_path / "home-skills"
    write_files(user, {"shared-tone/SKILL.md": skill_md("shared-tone"), "broken/SKILL.md": BROKEN})
    project.write({"desk.py": desk('["shared-tone"]')})
    assert codes(project.check()) == ["CL103"]
    # found there, and the user's own (broken) skills are not this project's findings
    assert project.check("--user-skills-dir", str(user)) == []


def test_user_skills_dir_from_the_environment(project, tmp_path, monkeypatch):
    user = tmp_path / "home-skills"
    write_files(user, {"shared-tone/SKILL.md": skill_md("shared-tone")})
    monkeypatch.setenv("SKILL_LSP_USER_SKILLS_DIR", str(user))
    project.write({"desk.py": desk('["shared-tone"]')})
    assert project.check() == []
    # only with the "user" setting source
    project.write({"desk.py": desk('["shared-tone"]', ', setting_sources=["project"]')})
    assert codes(project.check()) == ["CL103"]


def test_user_skills_dir_from_pyproject(project, tmp_path):
    user = tmp_path / "home-skills"
    write_files(user, {"shared-tone/SKILL.md": skill_md("shared-tone")})
    project.write({"desk.py": desk('["shared-tone"]'), "pyproject.toml": f'[tool.skill-lsp]\nuser-skills-dir = "{user}"\n'})
    assert project.check() == []


# -- generic roots ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("root", [".agents/skills", ".github/skills"])
def test_generic_spec_roots(check_project, root):
    findings = check_project({f"{root}/pdf/SKILL.md": skill_md("pdf", extra="when_to_use: PDFs")})
    finding = one(findings, "SK111")  # the spec profile does not know Claude's fields
    assert finding["path"] == f"{root}/pdf/SKILL.md"


@pytest.mark.parametrize("collection", ["skills", "vendor/anthropic-skills/skills"])
def test_skills_collection(check_project, collection):
    findings = check_project({
        f"{collection}/pdf/SKILL.md": skill_md("pdf"),
        f"{collection}/docx/SKILL.md": skill_md("docx", extra="when_to_use: Word files"),
    })
    assert [(f["path"], f["code"]) for f in findings] == [(f"{collection}/docx/SKILL.md", "SK111")]


@pytest.mark.parametrize(("profile", "severity"), [("claude", "information"), ("agentdeck", "error"), ("spec", "error")])
def test_configured_root_with_a_profile(check_project, profile, severity):
    findings = check_project({
        "prompts/order-status/SKILL.md": skill_md("Order status"),
        "pyproject.toml": f'[tool.skill-lsp]\nroots = [{{ path = "prompts", profile = "{profile}" }}]\n',
    })
    mismatch = one(findings, "SK108")
    assert mismatch["severity"] == severity


def test_configured_root_overrides_the_conventional_profile(check_project):
    findings = check_project({
        ".agents/skills/helper/SKILL.md": skill_md("helper", extra="when_to_use: always"),
        "pyproject.toml": '[tool.skill-lsp]\nroots = [{ path = ".agents/skills", profile = "claude" }]\n',
    })
    assert findings == []


def test_without_a_root_a_skill_is_undiscovered(check_project):
    assert codes(check_project({"prompts/order-status/SKILL.md": skill_md("order-status")})) == ["SK302"]


# -- what is never walked ------------------------------------------------------------------------------------


def test_version_control_dependencies_and_virtualenvs_are_skipped(check_project):
    findings = check_project({
        ".git/skills/bad/SKILL.md": BROKEN,
        "node_modules/some-pkg/skills/bad/SKILL.md": BROKEN,
        "env/pyvenv.cfg": "home = /usr/bin\n",
        "env/lib/python3.12/site-packages/pkg/skills/bad/SKILL.md": BROKEN,
        "env/lib/python3.12/site-packages/pkg/agent.py": 'from agentdeck import Agent\na = Agent(skills=["nope"])\n',
        ".agentdeck/skills/good/SKILL.md": skill_md("good"),
    })
    assert findings == []


@pytest.mark.parametrize("pattern", ["vendor", "vendor/", "vendor/**", "**/third_party/*"])
def test_exclude_globs(check_project, pattern):
    findings = check_project({
        "vendor/third_party/skills/bad/SKILL.md": BROKEN,
        ".agentdeck/skills/good/SKILL.md": skill_md("good"),
        "pyproject.toml": f'[tool.skill-lsp]\nexclude = ["{pattern}"]\n',
    })
    assert findings == []


def test_without_exclude_the_vendored_skill_is_checked(check_project):
    assert codes(check_project({"vendor/third_party/skills/bad/SKILL.md": BROKEN})) == ["SK101"]


# -- symlinks -------------------------------------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside the project holding a broken skill."""
    other = tmp_path / "elsewhere"
    write_files(other, {"skills/evil/SKILL.md": BROKEN, "skills/evil/agent.py": 'from agentdeck import Agent\nAgent(skills=["x"])\n'})
    return other


def test_symlinked_skill_out_of_the_project_is_never_followed(project, outside):
    project.write({".agentdeck/skills/good/SKILL.md": skill_md("good")})
    os.symlink(outside / "skills" / "evil", project.path(".agentdeck/skills/evil"), target_is_directory=True)
    assert project.check() == []


def test_symlinked_root_out_of_the_project_is_never_followed(project, outside):
    project.path(".claude").mkdir()
    os.symlink(outside / "skills", project.path(".claude/skills"), target_is_directory=True)
    assert project.check() == []


def test_symlinked_skill_file_out_of_the_project_is_never_read(project, outside):
    project.path(".agentdeck/skills/evil").mkdir(parents=True)
    os.symlink(outside / "skills" / "evil" / "SKILL.md", project.path(".agentdeck/skills/evil/SKILL.md"))
    assert project.check() == []


def test_symlink_inside_the_project_is_followed(project):
    project.write({"shared/tone/SKILL.md": BROKEN})
    project.path(".agentdeck/skills").mkdir(parents=True)
    os.symlink(project.path("shared/tone"), project.path(".agentdeck/skills/tone"), target_is_directory=True)
    assert "SK101" in codes(project.check())


# -- a walk shared between processes ------------------------------------------------------------


def _tree(root: Path, wide: int) -> None:
    files = {"pyproject.toml": "[project]\nname = 'x'\n", "agents/a.py": "x = 1\n",
             "node_modules/skip/SKILL.md": BROKEN, "venv-like/pyvenv.cfg": "", "venv-like/lib/SKILL.md": BROKEN}
    for number in range(wide):
        files[f".agentdeck/skills/s{number:03d}/SKILL.md"] = skill_md(f"s{number:03d}")
        files[f".agentdeck/skills/s{number:03d}/scripts/run.py"] = "print(1)\n"
        files[f"skills/t{number:03d}/SKILL.md"] = skill_md(f"t{number:03d}")
    write_files(root, files)


def _share_small_trees(monkeypatch, discovery, **settings):
    """A shared walk from the first directory with 8 subdirectories on, sharing from 4 (and any other
    of discovery's settings)."""
    monkeypatch.setattr(discovery, "FORK_FROM", 8)
    monkeypatch.setattr(discovery, "SHARE_FROM", 4)
    for name, value in settings.items():
        monkeypatch.setattr(discovery, name, value)


def _shape(listing: object) -> tuple[object, ...]:
    return tuple(getattr(listing, name) for name in ("skill_files", "python_files", "pyprojects", "directories", "unreadable"))


@pytest.mark.parametrize("helpers", [1, 3])
def test_a_shared_walk_finds_what_one_process_finds(tmp_path, monkeypatch, helpers):
    from skill_lsp import discovery

    _tree(tmp_path, 40)
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery)
    forks = counting_forks(monkeypatch, discovery)
    shared = discovery.walk(tmp_path, (), helpers)
    assert len(forks) == helpers
    assert _shape(shared) == _shape(alone)
    assert len(shared.skill_files) == 80 and len(shared.python_files) == 41


@pytest.mark.parametrize("helpers", [1, 2])
def test_a_shared_walk_with_work_meanwhile_does_it_once_and_finds_the_same(tmp_path, monkeypatch, helpers):
    from skill_lsp import discovery

    _tree(tmp_path, 40)
    alone = discovery.walk(tmp_path)
    calls: list[int] = []
    # a walk that does not fork leaves the work to its caller
    assert _shape(discovery.walk(tmp_path, (), helpers, meanwhile=lambda: calls.append(os.getpid()))) == _shape(alone)
    assert calls == []
    _share_small_trees(monkeypatch, discovery)
    shared = discovery.walk(tmp_path, (), helpers, meanwhile=lambda: calls.append(os.getpid()))
    assert calls == [os.getpid()]  # in this process, once (a helper's call would not reach this list)
    assert _shape(shared) == _shape(alone)


@pytest.mark.parametrize("helpers", [0, 1])
def test_a_walk_still_under_way_at_its_deadline_or_over_its_limit_raises(tmp_path, monkeypatch, helpers):
    """The server's head start walks with a deadline (an editor waits for initialize's answer) and a
    limit of files: a walk any process of which is still under way then, or has found more, is no
    listing at all."""
    import time

    from skill_lsp import discovery

    _tree(tmp_path, 40)
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery)
    with pytest.raises(discovery.WalkStopped):
        discovery.walk(tmp_path, (), helpers, deadline=time.monotonic() - 1)
    assert _shape(discovery.walk(tmp_path, (), helpers, deadline=time.monotonic() + 60)) == _shape(alone)
    # a limit of files found by one process stops it the same way (the tree is larger than the limit)
    with pytest.raises(discovery.WalkStopped):
        discovery.walk(tmp_path, (), helpers, limit=10)
    files = len(alone.skill_files) + len(alone.python_files) + len(alone.pyprojects)
    assert _shape(discovery.walk(tmp_path, (), helpers, limit=files + 1)) == _shape(alone)
    if helpers:
        # a helper that is slow (still listing a directory at the deadline) stops the walk, whatever
        # this process found in time. Each directory it lists takes it past the deadline: on a busy
        # machine it may claim no share of its own (this process took them all first), but it lists
        # the directories outside the shares all the same (every process does)
        parent = os.getpid()
        real_scandir = os.scandir

        def slow_in_a_helper(path):
            if os.getpid() != parent:
                time.sleep(0.6)
            return real_scandir(path)

        monkeypatch.setattr(discovery.os, "scandir", slow_in_a_helper)
        with pytest.raises(discovery.WalkStopped):
            discovery.walk(tmp_path, (), 1, deadline=time.monotonic() + 0.5)


@pytest.mark.parametrize("helpers", [1, 3])
def test_a_shared_walk_lists_each_file_once_so_its_limit_counts_each_once(tmp_path, monkeypatch, helpers):
    """Every directory is walked by one process only (this one, or the worker given its piece): a file
    listed twice was counted twice towards the limit, and a walk under its limit stopped."""
    from skill_lsp import discovery

    _tree(tmp_path, 40)
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery)
    walker = discovery._Walker(tmp_path, (), helpers)
    try:
        walker.run()
    finally:
        walker.stop()
    assert walker.deal is not None  # shared
    found = walker.found
    for name in ("skill_files", "python_files", "pyprojects", "directories"):
        listed = getattr(found, name)
        assert len(listed) == len(set(listed)), name
        if name != "directories":
            assert sorted(map(Path, listed)) == sorted(getattr(alone, name)), name


def _pieces_walked_by_workers(monkeypatch, discovery) -> list[int]:
    """The directories of each piece a worker walked, as this process merged them."""
    walked: list[int] = []
    real_take_in = discovery._Walker._take_in

    def counting(self, piece, found):
        walked.append(len(found.directories))
        real_take_in(self, piece, found)

    monkeypatch.setattr(discovery._Walker, "_take_in", counting)
    return walked


def test_a_helper_takes_the_shared_directories_a_busy_process_leaves(tmp_path, monkeypatch):
    """A wide directory's pieces are given to the pool's workers as they get to them: while this
    process is busy (check imports its analysers), the worker walks them."""
    import time

    from skill_lsp import discovery

    _tree(tmp_path, 40)
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery, SHARE=2)
    walked = _pieces_walked_by_workers(monkeypatch, discovery)
    shared = discovery.walk(tmp_path, (), 1, meanwhile=lambda: time.sleep(0.5))
    assert _shape(shared) == _shape(alone)
    assert sum(walked) > 0.8 * len(alone.directories)  # the worker walked nearly all of it


@pytest.mark.parametrize("death", [None, 1, 3])
def test_a_worker_that_dies_leaves_its_pieces_to_this_process(tmp_path, monkeypatch, death):
    """A worker that dies at its first or third piece breaks the pool: every piece no worker finished
    is walked here, and the listing is one process's, without walking the tree again."""
    from skill_lsp import discovery

    _tree(tmp_path, 40)
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery, SHARE=2)
    parent = os.getpid()
    reached = tmp_path.parent / f"{tmp_path.name}-reached"  # the worker is at its piece `death` (or third)
    real_walk = discovery._Walker.walk
    pieces: list[int] = []  # (in the worker, its own count)

    def dying(self, stack):
        if os.getpid() != parent:  # a worker's piece
            pieces.append(1)
            if len(pieces) == (death or 3):
                reached.touch()  # it says so, then dies (or walks on)
                if death:
                    os._exit(1)
        return real_walk(self, stack)

    monkeypatch.setattr(discovery._Walker, "walk", dying)
    walked = _pieces_walked_by_workers(monkeypatch, discovery)
    walks: list[int] = []  # the helpers of each walk this process made
    real_run = discovery._Walker.run
    monkeypatch.setattr(discovery._Walker, "run", lambda self: (walks.append(self.helpers), real_run(self))[1])
    real_here = discovery._Walker._walk_here

    def waiting_here(self, piece):
        # this process walks its first piece once the worker has reached the piece meant: meanwhile
        # the worker is given every other piece
        wait_for(reached.exists)
        real_here(self, piece)

    monkeypatch.setattr(discovery._Walker, "_walk_here", waiting_here)
    assert _shape(discovery.walk(tmp_path, (), 1)) == _shape(alone)
    assert walks == [1]  # never walked again
    assert reached.exists()
    if death is None:
        assert len(walked) >= 3  # in pieces, merged as they came
    else:
        assert len(walked) == death - 1


@pytest.mark.slow
def test_a_helper_walks_on_while_this_process_is_busy(tmp_path, monkeypatch):
    """The server's head start imports its protocol while the worker walks: a worker's pieces come
    back through the pool's own thread, so the worker walks on, within its deadline, while this
    process is busy past it (a hand-made helper that waited for its full pipe to be read once ran
    past its deadline, and the walk was lost at 10,000 skills)."""
    import time

    from skill_lsp import discovery

    _tree(tmp_path, 150)
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery, SHARE=2)
    # this process is busy past the deadline; the worker has the whole deadline to walk its pieces
    # (hundreds of directories: milliseconds)
    walked = discovery.walk(tmp_path, (), 1, meanwhile=lambda: time.sleep(1.5), deadline=time.monotonic() + 1.0,
                            meanwhile_grace=1.0)
    assert _shape(walked) == _shape(alone)


@pytest.mark.slow
def test_a_walk_ends_once_a_helper_says_it_stopped(tmp_path, monkeypatch):
    """The head start's deadline moves by the protocol's import, for this process only: the workers'
    pieces stop at the deadline itself. When one has, the walk is lost, and this process stops too
    instead of walking on to its own later deadline (the head start's walk of /usr: initialize
    answered 0.4 s later for nothing)."""
    import os
    import time

    from skill_lsp import discovery

    _tree(tmp_path, 150)
    _share_small_trees(monkeypatch, discovery, SHARE=2)
    real_scandir = os.scandir
    listed: list[int] = []  # (in this process; each worker counts in its own copy)

    def slow_scandir(path):
        time.sleep(0.01)  # a tree that takes seconds to walk
        listed.append(1)
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", slow_scandir)
    after: list[int] = []  # what this process had listed when its busy time ended

    def meanwhile():
        time.sleep(1.0)  # busy past the workers' deadline: they stopped meanwhile
        after.append(len(listed))

    with pytest.raises(discovery.WalkStopped):
        discovery.walk(tmp_path, (), 1, meanwhile=meanwhile, deadline=time.monotonic() + 0.5, meanwhile_grace=10.0)
    # not the 50 directories its own deadline, 0.5 s after its busy time, left it time for
    assert len(listed) - after[0] <= 10


def test_the_check_walks_while_it_imports_its_analysers(tmp_path, monkeypatch):
    """The CLI's shared walk imports the analysers meanwhile, and its findings are one process's."""
    from skill_lsp import cli, discovery

    _tree(tmp_path, 40)
    write_files(tmp_path, {"skills/s-0/SKILL.md": skill_md(name="wrong-name", description="Use when testing.")})

    def findings() -> list[str]:
        return sorted(f"{f.path}:{f.code}:{f.span}" for items in cli._analyse([tmp_path], cli.Config(), None).results.values() for f in items)

    monkeypatch.setattr(cli.forks, "children_available", lambda: 0)
    expected = findings()
    assert any(":SK109:" in item or ":SK108:" in item for item in expected)
    monkeypatch.setattr(cli.forks, "children_available", lambda: 1)
    _share_small_trees(monkeypatch, discovery)
    imported: list[int] = []
    real = cli._import_analysers
    monkeypatch.setattr(cli, "_import_analysers", lambda: (imported.append(1), real()))
    assert findings() == expected
    assert imported == [1]


def test_a_shared_walk_that_meets_a_linked_directory_walks_again_alone(tmp_path, monkeypatch):
    from skill_lsp import discovery

    _tree(tmp_path, 40)
    (tmp_path / "linked").symlink_to(tmp_path / "skills")
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery)
    walks: list[int] = []  # the helpers of each walk this process made
    real_run = discovery._Walker.run
    monkeypatch.setattr(discovery._Walker, "run", lambda self: (walks.append(self.helpers), real_run(self))[1])
    assert _shape(discovery.walk(tmp_path, (), 1)) == _shape(alone)
    assert walks == [1, 0]


@pytest.mark.parametrize("failing", ["the pool", "the third worker's fork"])
def test_a_walk_that_cannot_fork_every_helper_walks_alone(tmp_path, monkeypatch, failing):
    """No pool to be had, or a worker that cannot be forked: this process walks what no worker took."""
    from skill_lsp import discovery, pool

    _tree(tmp_path, 40)
    alone = discovery.walk(tmp_path)
    _share_small_trees(monkeypatch, discovery)
    calls: list[int] = []
    if failing == "the pool":
        def no_pool(*args: object) -> None:
            calls.append(1)
            raise OSError("no processes")

        monkeypatch.setattr(discovery, "Pool", no_pool)
    else:
        real_fork = os.fork

        def third_fails() -> int:
            calls.append(1)
            if len(calls) == 3:
                raise OSError("no processes")
            return real_fork()

        monkeypatch.setattr(os, "fork", third_fails)
    assert _shape(discovery.walk(tmp_path, (), 3)) == _shape(alone)
    assert calls
    assert not pool.running()


@pytest.mark.parametrize("text", ["/", "/a", "/a/b/SKILL.md", "a", "a/b", "/SKILL.md", "C:/x", "rel/../x"])
def test_split_text_is_os_path_split_for_a_path_s_text(text):
    from skill_lsp.pathtext import split_text

    normalised = str(Path(os.path.normpath(text)))
    assert split_text(normalised) == os.path.split(normalised)



@pytest.mark.parametrize("text", [
    "/", "/a", "/a/b/SKILL.md", "/srv/.agentdeck/skills/pdf tools/SKILL.md", "//a", "/a//b", "/a/./b", "/a/../b",
    "/a/b/", "/a/.", "a/b", "", ".", "/é/日本/x.py", "/a/b\\c",
])
def test_path_of_is_path_for_any_text(text):
    from skill_lsp.pathtext import path_of

    made, expected = path_of(text), Path(text)
    assert type(made) is type(expected)
    assert (made, str(made), made.parts, made.name, made.parent, hash(made)) == (
        expected, str(expected), expected.parts, expected.name, expected.parent, hash(expected))
    assert {expected: 1}[made] == 1 and made / "x" == expected / "x" and made.as_posix() == expected.as_posix()


def test_a_walk_s_paths_are_path_s(tmp_path):
    from skill_lsp import discovery

    write_files(tmp_path, {".agentdeck/skills/a b/SKILL.md": "x", "agents/x.py": "", "pyproject.toml": ""})
    listing = discovery.walk(tmp_path)
    for path in listing.skill_files + listing.python_files + listing.pyprojects:
        assert (type(path), path, str(path), path.parts) == (type(Path(str(path))), Path(str(path)), str(Path(str(path))), Path(str(path)).parts)


@pytest.mark.parametrize("text", ["/a/b/SKILL.md", "/SKILL.md", "/a/SKILL.md", "/srv/x y/.claude/skills/s/SKILL.md",
                                  "a/b/SKILL.md", "b/SKILL.md", "SKILL.md", "/a/b/skill.md"])
def test_split_skill_text_is_split_text_twice(text):
    from skill_lsp.pathtext import split_skill_text, split_text

    directory, name = split_text(text)
    above, directory_name = split_text(directory)
    assert split_skill_text(text) == (above, directory, directory_name, name)


def test_a_virtualenv_adds_nothing_whatever_the_order_its_files_are_listed_in(tmp_path):
    from skill_lsp import discovery

    files = {"venv-like/pyvenv.cfg": "", "pyproject.toml": ""}
    for name in ("a", "m", "z"):  # before and after pyvenv.cfg in any listing order
        files.update({f"venv-like/{name}.py": "", f"venv-like/{name}/SKILL.md": "x", f"venv-like/{name}/pyproject.toml": ""})
    files.update({"venv-like/SKILL.md": "x", "venv-like/pyproject.toml": "", "kept/SKILL.md": "x"})
    write_files(tmp_path, files)
    listing = discovery.walk(tmp_path)
    assert listing.skill_files == [tmp_path / "kept/SKILL.md"]
    assert listing.python_files == [] and listing.pyprojects == [tmp_path / "pyproject.toml"]
    assert str(tmp_path / "venv-like") in listing.directories  # listed, then dropped as a virtualenv
    assert not any("venv-like/" in directory for directory in listing.directories)


def test_a_near_walk_takes_the_skills_roots_by_the_open_files_first(tmp_path):
    """The near model's walk (NearIndex, bounded in time) walks the conventional skills roots of the
    open file's directories before anything else there: a walk cut short, here by a limit of one file,
    has the skills the open file names, not whatever its directory holds first."""
    from skill_lsp.discovery import walk_nearest

    root = tmp_path / "proj"
    write_files(root, {
        ".agentdeck/skills/alpha/SKILL.md": "---\nname: alpha\ndescription: A.\n---\n",
        ".claude/skills/beta/SKILL.md": "---\nname: beta\ndescription: B.\n---\n",
        "app/agent.py": "x = 1\n",
        **{f"app/data/{number:03d}/notes.py": "y = 2\n" for number in range(50)},
    })
    open_file = root / "app/agent.py"
    walked, bounded = walk_nearest(root, (), 3, [open_file], roots_first=True)
    assert bounded is not None
    assert {Path(path).parent.name for path in walked.skill_files} == {"alpha", "beta"}
    assert [Path(path).name for path in walked.python_files] == ["agent.py"]  # its own directory first
    plain, _ = walk_nearest(root, (), 3, [open_file])
    assert plain.skill_files == []  # without: the open file's directory, then app/data...
