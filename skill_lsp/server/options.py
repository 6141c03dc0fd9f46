"""The client's settings: typed, from initializationOptions, workspace/configuration and
didChangeConfiguration; a bad value is reported and its default used, never a crash."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..config import editor_config
from .convert import uri_of
from .server import SkillLanguageServer
from .session import Settings

log = logging.getLogger("skill_lsp.server")


def parse_options(data: Any, base: Path) -> tuple[Settings, list[str]]:
    """Typed settings from initializationOptions / workspace/configuration; defaults on bad values."""
    problems: list[str] = []
    settings = Settings()
    if data is None:
        return settings, problems
    if not isinstance(data, dict):
        return settings, [f"skillLsp settings must be an object, got {type(data).__name__}"]
    validate = data.get("validate", "onType")
    if validate in ("onType", "onSave"):
        settings.validate = validate
    else:
        problems.append(f"skillLsp.validate must be \"onType\" or \"onSave\", got {validate!r}")
    debounce = data.get("debounce", 300)
    if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and 0 <= debounce <= 60_000:
        settings.debounce_ms = int(debounce)
    else:
        problems.append(f"skillLsp.debounce must be a number of milliseconds (0-60000), got {debounce!r}")
    settings.config, config_problems = editor_config(data, base)
    return settings, problems + config_problems


async def fetch_configuration(ls: SkillLanguageServer) -> None:
    folders = ls.folders()
    try:
        result = await ls.workspace_configuration_async(types.ConfigurationParams(items=[
            types.ConfigurationItem(section="skillLsp", scope_uri=uri_of(folders[0]) if folders else None)
        ]))
    except Exception as error:
        log.warning("workspace/configuration failed: %s", error)
        return
    if not result or result[0] is None:
        return
    settings, problems = parse_options(result[0], folders[0] if folders else Path(os.getcwd()))
    for problem in problems:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                       message=f"skill-lsp: {problem}; using the default"))
    ls.settings = settings
    if ls.session is not None and not ls.scheduler.started:  # later, the worker's job carries them over
        ls.session.settings = settings
