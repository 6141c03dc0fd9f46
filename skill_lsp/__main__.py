"""`python -m skill_lsp`: the command line, as the `skill-lsp` script runs it (cli.run)."""

from .cli import run

run()
