"""skill-lsp: a language server and checker for agent skills (SKILL.md) and the agents that use them."""

__version__ = "0.1.0"
