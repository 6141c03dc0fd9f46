"""The specification's numeric limits, for the rules outside the frontmatter (SK203's body length).

What each runtime knows about frontmatter fields lives in `skill_lsp.runtimes` (one module per runtime);
this module only keeps the limits' old import path.
"""

from __future__ import annotations

from .runtimes.claude_code import LISTING_CAP as CLAUDE_LISTING_LIMIT
from .runtimes.spec import BODY_LINE_LIMIT, COMPATIBILITY_LIMIT, DESCRIPTION_LIMIT, NAME_LIMIT

__all__ = ["BODY_LINE_LIMIT", "CLAUDE_LISTING_LIMIT", "COMPATIBILITY_LIMIT", "DESCRIPTION_LIMIT", "NAME_LIMIT"]
