"""The server's layout holds: the scheduler knows nothing of the protocol, and every server module is short."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "skill_lsp" / "server"


def test_the_scheduler_imports_no_pygls_nor_lsprotocol() -> None:
    """The scheduling is given what to apply and when a request arrived (server.py hands them in): nothing
    of pygls or lsprotocol is imported with it, directly or through the modules it uses."""
    code = ("import sys; import skill_lsp.server.scheduler; "
            "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_each_server_module_says_its_purpose_and_is_short() -> None:
    for path in sorted(SERVER.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        docstring = ast.get_docstring(ast.parse(text))
        assert docstring, f"{path.name} has no docstring saying its purpose"
        assert text.count("\n") <= 600, f"{path.name} has {text.count(chr(10))} lines"
