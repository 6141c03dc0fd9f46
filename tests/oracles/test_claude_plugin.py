"""The repository's Claude Code plugin (editors/claude-code) and marketplace (.claude-plugin/marketplace.json), judged
by Claude Code 2.1.332 itself: `claude plugin validate --strict` accepts both, and the documented commands
(`/plugin marketplace add` on the clone, then `/plugin install`) install and enable the plugin, offline, in a
throwaway HOME.

Without the oracle the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..docs import snippet
from .oracles import TIMEOUT, find_claude

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "claude-code"

pytestmark = pytest.mark.oracle


class Claude:
    """The pinned `claude`, run in a throwaway HOME (its settings, plugin cache and marketplaces go there)."""

    def __init__(self, binary: Path, home: str) -> None:
        self.binary, self.home = binary, home
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "LANG": "C.UTF-8", "DISABLE_AUTOUPDATER": "1",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.binary), *args], capture_output=True, text=True, timeout=TIMEOUT, env=self.env,
                              cwd=self.home)


@pytest.fixture
def claude() -> Iterator[Claude]:
    binary = find_claude()
    if binary is None:
        message = "oracle claude is not installed: run scripts/install-oracles"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    with tempfile.TemporaryDirectory() as home:
        yield Claude(binary, home)


@pytest.mark.parametrize(("target", "kind", "manifest"), [
    (PLUGIN, "plugin", PLUGIN / ".claude-plugin" / "plugin.json"),
    (ROOT, "marketplace", ROOT / ".claude-plugin" / "marketplace.json"),
], ids=["plugin", "marketplace"])
def test_claude_plugin_validate_strict_accepts_it(claude: Claude, target: Path, kind: str, manifest: Path) -> None:
    done = claude("plugin", "validate", "--strict", "--json", str(target))
    report = json.loads(done.stdout)
    assert (done.returncode, report["success"], report["strict"]) == (0, True, True), done.stdout
    assert (report["manifest"]["type"], report["manifest"]["file"]) == (kind, str(manifest))
    assert (report["manifest"]["errors"], report["manifest"]["warnings"]) == ([], [])
    if kind == "plugin":
        servers = report["provides"]["lspServers"]
        assert servers == [{"name": "skill-lsp", "command": "skill-lsp", "args": ["serve"]}]


@pytest.mark.parametrize("name", ["claude-code-plugin", "claude-code-plugin-page"])
def test_the_documented_commands_install_and_enable_the_plugin_from_a_clone(claude: Claude, name: str) -> None:
    """The README's and docs/claude-code.md's block, each line `/plugin ...` run as `claude plugin ...` (the same
    command from a shell) with the clone's path for the placeholder."""
    lines = snippet(name).splitlines()
    assert lines == ["/plugin marketplace add /path/to/skill-lsp", "/plugin install skill-lsp@skill-lsp"]
    added = claude(*lines[0].removeprefix("/").replace("/path/to/skill-lsp", str(ROOT)).split())
    assert added.returncode == 0 and "Successfully added marketplace: skill-lsp" in added.stdout, added.stdout + added.stderr
    installed = claude(*lines[1].removeprefix("/").split())
    assert installed.returncode == 0 and "Successfully installed plugin: skill-lsp@skill-lsp" in installed.stdout, installed.stderr
    listed = json.loads(claude("plugin", "list", "--json").stdout)
    ours = [plugin for plugin in listed if plugin["id"] == "skill-lsp@skill-lsp"]
    assert [(plugin["version"], plugin["enabled"]) for plugin in ours] == [("0.1.0", True)]
    assert (Path(ours[0]["installPath"]) / ".lsp.json").read_text(encoding="utf-8") == (PLUGIN / ".lsp.json").read_text(encoding="utf-8")
