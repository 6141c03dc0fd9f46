"""The wiring: the server instance, and every LSP method and command it answers, each to its handler.

One place to read what the server does (as esbonio's setup.py and ruff's api.rs): the handlers live by
purpose beside it (lifecycle, documents, pull, hover, completion, navigation, symbols, edits, skillsview), the
scheduling of the analyses in scheduler.py, their publication in publish.py, the server object in server.py.
"""

from __future__ import annotations

from lsprotocol import types

from . import completion, documents, edits, hover, lifecycle, navigation, pull, skillsview, symbols
from .server import SkillLanguageServer

server = SkillLanguageServer()

# -- lifecycle ------------------------------------------------------------------------------------------
server.feature(types.INITIALIZE)(lifecycle.on_initialize)
server.feature(types.INITIALIZED)(lifecycle.on_initialized)
server.feature(types.SHUTDOWN)(lifecycle.on_shutdown)
server.feature(types.EXIT)(lifecycle.on_exit)

# -- document and workspace sync ------------------------------------------------------------------------
server.feature(types.TEXT_DOCUMENT_DID_OPEN)(documents.did_open)
server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(documents.did_change)
server.feature(types.TEXT_DOCUMENT_DID_SAVE)(documents.did_save)
server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(documents.did_close)
server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(documents.did_change_watched_files)
server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(documents.did_change_folders)
server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(documents.did_change_configuration)

# -- pull diagnostics (pushed ones are published after each analysis: publish.py) -------------------------
server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
    identifier="skill-lsp", inter_file_dependencies=True, workspace_diagnostics=True))(pull.pull_document)
server.feature(types.WORKSPACE_DIAGNOSTIC)(pull.pull_workspace)

# -- features -------------------------------------------------------------------------------------------
server.feature(types.TEXT_DOCUMENT_HOVER)(hover.hover)
server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(
    trigger_characters=['"', "'", ":", "-"], resolve_provider=True))(completion.completion)
server.feature(types.COMPLETION_ITEM_RESOLVE)(completion.completion_resolve)
server.feature(types.TEXT_DOCUMENT_DEFINITION)(navigation.definition)
server.feature(types.TEXT_DOCUMENT_REFERENCES)(navigation.references)
server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)(navigation.document_links)
server.feature(types.TEXT_DOCUMENT_CODE_LENS)(navigation.code_lens)
server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(symbols.document_symbols)
server.feature(types.WORKSPACE_SYMBOL)(symbols.workspace_symbols)
server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)(edits.prepare_rename)
server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))(edits.rename)
server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix]))(edits.code_action)

# -- the skills view: its request, and its notification after each analysis ------------------------------
server.feature(skillsview.REQUEST)(skillsview.skills_request)
server.after_analysis.append(skillsview.tell_view)

# -- commands -------------------------------------------------------------------------------------------
server.command("skillLsp.reveal")(edits.reveal_command)
server.command("skillLsp.disclosure")(hover.disclosure_command)
