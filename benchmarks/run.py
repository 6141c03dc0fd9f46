"""skill-lsp's benchmark: every figure next to a floor measured in the same run.

    python benchmarks/run.py                      # 1k, 10k and 50k skills
    python benchmarks/run.py --sizes 1000,10000   # chosen sizes
    python benchmarks/run.py --quick              # a small smoke run (seconds)
    python benchmarks/run.py --figures 3,4,5,6,8  # only some figures (here: the server's)

Prints a table, writes benchmarks/out/results.{json,md} and a chart
(benchmarks/out/benchmark.png; `--chart docs/benchmark.png` for the README's).

Figures, for a corpus of N skills and N/10 agent files (benchmarks/generate.py):

1. cold `skill-lsp check --no-cache` — floor: read every SKILL.md, compose its
   frontmatter with libyaml, read every Python file (benchmarks/floors.py); and
   its variants against it, in turn with it: one process (no pool), and every
   `--variant LABEL=TREE` (another source tree, or a git revision: e.g. the
   hand-made pool's commit, d9d248e, or the hand-made walk's, 3b8eb90);
2. warm `skill-lsp check` (its cache filled, nothing changed) — floor: walk the
   tree and stat every file;
3. server start -> diagnostics published for the whole workspace (the best of
   --repeat starts, each beside a cold check: its floor);
4. didChange -> publishDiagnostics of that file, p50/p95 (debounce 0): a
   SKILL.md body-level edit, a SKILL.md name (registry key) edit, an agent file;
5. hover, completion, definition, references: p50/p95;
6. peak RSS of the server and of check;
7. the cold check done by skills-ref (the Agent Skills reference validator)
   over every skill directory in one process;
8. hostile buffers, each against a benign one in the same run: 5,000 unknown
   names on one line (UTF-16 positions) against the same names on 5,000 lines;
   a 1 MB body line with 5,000 links against the same links on 5,000 lines; a
   7 MB buffer edited at its end 30 times a second (last edit -> final
   diagnostics, against one analysis of it; the slowest request meanwhile);
   the slowest of ten kinds of request about an open agent file and skill,
   asked over and over while the first index runs, against the same asked
   after it; and the time the server takes to end once stdin closes mid-index.

Wall times are the best of --repeat runs (the least disturbed by other load);
the operating system's file cache is warm for every process, floors included.
Nothing here asserts: the figures are printed, with their targets.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import Manifest, ensure_corpus  # noqa: E402

PYTHON = sys.executable
FLOORS = str(HERE / "floors.py")


@dataclass
class Row:
    figure: str
    size: int
    value: float
    unit: str
    floor: float | None = None
    floor_label: str = ""
    target: str = ""
    met: bool | None = None
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        return self.value / self.floor if self.floor else None


# -- processes ---------------------------------------------------------------------------


def environment(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["SKILL_LSP_USER_SKILLS_DIR"] = ""  # never the developer's ~/.claude/skills
    env["SKILL_LSP_CACHE_DIR"] = str(cache)
    env.pop("SKILL_LSP_TRACE", None)
    return env


def compile_bytecode() -> None:
    """Compile skill-lsp's modules the way `pip install` does: with PYTHONDONTWRITEBYTECODE set
    (or a read-only checkout) an editable install would otherwise compile every module from
    source on each start-up, which a user's installed copy never does."""
    import compileall

    import skill_lsp

    compileall.compile_dir(str(Path(skill_lsp.__file__).parent), quiet=1)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one process run to completion."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = 0
    return wall, usage.ru_maxrss / 1024


def best_of(command: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    runs = [timed(command, env) for _ in range(repeat)]
    return min(wall for wall, _ in runs), max(rss for _, rss in runs)


def interleaved(ours: list[str], floor: list[str], env: dict[str, str], repeat: int) -> tuple[float, float, float]:
    """Best wall time of ours and of its floor, run alternately so that load hits both alike."""
    mine: list[float] = []
    base: list[float] = []
    rss = 0.0
    for _ in range(repeat):
        wall, peak = timed(ours, env)
        mine.append(wall)
        rss = max(rss, peak)
        base.append(timed(floor, env)[0])
    return min(mine), min(base), rss


# -- a minimal LSP client ------------------------------------------------------------------------


# the key under which Client notes when a message arrived (perf_counter)
ARRIVED = "_arrived"


class Client:
    """JSON-RPC over the server's stdio; answers the server's own requests with null."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen([PYTHON, "-m", "skill_lsp", "serve"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        self.published: list[dict[str, Any]] = []
        self.logged: list[str] = []  # the window/logMessage texts, in order
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
            message = json.loads(stream.read(length))
            message[ARRIVED] = time.perf_counter()
            if "method" in message and "id" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            if message.get("method") == "window/logMessage":
                self.logged.append(str(message["params"].get("message")))
            self.messages.put(message)

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode("utf-8")
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 120) -> Any:
        self.next_id += 1
        ident = self.next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == ident, timeout).get("result")

    def wait(self, predicate: Any, timeout: float = 600) -> dict[str, Any]:
        """The first message for which predicate holds; the diagnostics published meanwhile are kept
        for a later wait (they may come before the answer to a request asked after the edit)."""
        for index, message in enumerate(self.published):
            if predicate(message):
                del self.published[index]
                return message
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the server did not answer")
            try:
                message = self.messages.get(timeout=remaining)
            except queue.Empty:
                raise TimeoutError("the server did not answer") from None
            if predicate(message):
                return message
            if message.get("method") == "textDocument/publishDiagnostics":
                self.published = [*self.published[-200:], message]

    def peak_rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=30)
            self.notify("exit", None)
            self.process.wait(timeout=30)
        except Exception:
            self.process.kill()
            self.process.wait()


def uri(path: str | Path) -> str:
    return Path(path).as_uri()


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def _initialized(env: dict[str, str], root: Path) -> Client:
    client = Client(env, root)
    client.request("initialize", {
        "processId": os.getpid(), "rootUri": uri(root),
        "workspaceFolders": [{"uri": uri(root), "name": root.name}],
        "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}, "hover": {},
                                          "completion": {}, "definition": {}, "references": {}}},
        "initializationOptions": {"debounce": 0},
    })
    client.notify("initialized", {})
    return client


def _indexed(client: Client) -> bool:
    return any(": indexed " in message for message in client.logged)


def _started_on(env: dict[str, str], root: Path) -> tuple[Client, float]:
    """A server on root, and the seconds from its start to the end of its first index."""
    started = time.perf_counter()
    client = _initialized(env, root)
    client.wait(lambda m: m.get("method") == "window/logMessage" and ": indexed " in m["params"]["message"])
    return client, time.perf_counter() - started


def server_figures(manifest: Manifest, env: dict[str, str], samples: int, repeat: int) -> list[Row]:
    root = Path(manifest.root)
    size = manifest.skills
    rows: list[Row] = []
    # figure 3 as figure 1 is taken: the best of `repeat` runs, each beside a cold check of the same
    # tree (its floor, measured in the same rounds: the machine's speed drifts over a run)
    starts, checks = [], []
    cold_check = [*check_command(str(root)), "--no-cache"]
    for _ in range(max(repeat - 1, 0)):
        checks.append(timed(cold_check, env)[0])
        spare, seconds = _started_on(env, root)
        spare.close()
        starts.append(seconds)
    checks.append(timed(cold_check, env)[0])
    client, seconds = _started_on(env, root)
    try:
        starts.append(seconds)
        rows.append(Row("3 server start → workspace diagnostics", size, min(starts), "s", min(checks), "cold check"))

        agent = Path(manifest.sample_agent)
        skill = Path(manifest.sample_skill)
        agent_text = agent.read_text(encoding="utf-8")
        skill_text = skill.read_text(encoding="utf-8")
        # a skill of .claude/skills, one choice of a third of the skills (SK310 compares their descriptions)
        claude = min((root / ".claude/skills").iterdir()) / "SKILL.md"
        claude_text = claude.read_text(encoding="utf-8")
        for path, text, language in ((agent, agent_text, "python"), (skill, skill_text, "markdown"),
                                     (claude, claude_text, "markdown")):
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": language,
                                                                    "version": 1, "text": text}})
        time.sleep(0.5)
        while not client.messages.empty():
            client.messages.get()
        client.published.clear()

        name = manifest.sample_skill_name
        # each edit alternates between the file as it was and the changed text (of the sample number)
        edits: dict[str, tuple[Path, str, Callable[[int], str]]] = {
            "SKILL.md edit": (skill, skill_text, lambda _: skill_text.replace("\n---\n", "\nlicence: MIT\n---\n", 1)),
            # new words in a description: the skill's pairs, and those sharing a word whose count moved, judged again
            "SKILL.md description edit (SK310)": (claude, claude_text, lambda _: claude_text.replace(
                "description: ", "description: Merge the scanned pdf files of an audit. ", 1)),
            "SKILL.md name edit": (skill, skill_text,
                                   lambda _: skill_text.replace(f"name: {name}\n", f"name: {name}-renamed\n", 1)),
            # the same misspelt skill name each time: its "did you mean" is searched once, then kept while
            # the registry's names are unchanged (the file is checked again on every keystroke elsewhere in it)
            "agent file edit": (agent, agent_text, lambda _: agent_text.replace(f'"{name}"', f'"{name}x"', 1)),
            # a name never seen before each time (typing it): every edit searches the whole registry
            "agent file edit, new unknown name": (agent, agent_text,
                                                  lambda index: agent_text.replace(f'"{name}"', f'"{name}x{index}"', 1)),
        }
        version = 1
        for label, (path, original, changed) in edits.items():
            latencies = []
            for index in range(samples * 2):
                version += 1
                text = changed(index) if index % 2 == 0 else original
                target = uri(path)
                sent = time.perf_counter()
                client.notify("textDocument/didChange", {"textDocument": {"uri": target, "version": version},
                                                         "contentChanges": [{"text": text}]})
                client.wait(lambda m, target=target, version=version: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == target and m["params"].get("version") == version)
                latencies.append(time.perf_counter() - sent)
            rows.append(Row(f"4 didChange → diagnostics: {label}", size, percentile(latencies, 0.5) * 1000, "ms",
                            extra={"p95": percentile(latencies, 0.95) * 1000}))

        line, column = manifest.sample_agent_line, manifest.sample_agent_column
        at_name = {"textDocument": {"uri": uri(agent)}, "position": {"line": line, "character": column + 2}}
        requests = {
            "hover": ("textDocument/hover", at_name),
            "completion": ("textDocument/completion", {**at_name, "position": {"line": line, "character": column}}),
            "definition": ("textDocument/definition", at_name),
            "references": ("textDocument/references", {**at_name, "context": {"includeDeclaration": True}}),
        }
        for label, (method, params) in requests.items():
            latencies = []
            for _ in range(samples):
                sent = time.perf_counter()
                result = client.request(method, params)
                latencies.append(time.perf_counter() - sent)
            if not result:
                print(f"warning: {method} returned nothing", file=sys.stderr)
            rows.append(Row(f"5 {label}", size, percentile(latencies, 0.5) * 1000, "ms",
                            extra={"p95": percentile(latencies, 0.95) * 1000}))
        rows.append(Row("6 peak RSS: server", size, client.peak_rss_mb(), "MB"))
    finally:
        client.close()
    return rows


# -- figure 8: hostile buffers, each against a benign one measured in the same run ---------------


def _project(root: Path) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    skill = root / ".agentdeck/skills/demo/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: demo\ndescription: Do the demo thing.\n---\n\nFollow these steps.\n", encoding="utf-8")
    return root


def _open_to_diagnostics(env: dict[str, str], root: Path, path: Path, text: str) -> float:
    """Seconds from didOpen of text to its diagnostics, in a fresh server."""
    client = _started_on(env, root)[0]
    try:
        sent = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": "plaintext",
                                                                "version": 1, "text": text}})
        client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(path))
        return time.perf_counter() - sent
    finally:
        client.close()


def _edits_at_the_end(env: dict[str, str], root: Path, path: Path, text: str,
                      requests: list[tuple[str, dict[str, Any]]] | None = None) -> tuple[float, float]:
    """90 edits at the end of text, 30 a second, a request after every tenth (documentSymbol, or each
    of requests in turn): the slowest answer, and the seconds from the last edit to the diagnostics of
    the final version."""
    client = _started_on(env, root)[0]
    asked = requests or [("textDocument/documentSymbol", {})]
    try:
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": "python" if path.suffix == ".py"
                                                                else "markdown", "version": 1, "text": text}})
        end = text.count("\n")
        slowest = 0.0
        version = 1
        last = time.perf_counter()
        for number in range(90):
            version += 1
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [
                {"range": {"start": {"line": end, "character": 0}, "end": {"line": end, "character": 0}}, "text": "x"}]})
            last = time.perf_counter()
            if number % 10 == 9:
                method, params = asked[(number // 10) % len(asked)]
                sent = time.perf_counter()
                client.request(method, {"textDocument": {"uri": uri(path)}, **params})
                slowest = max(slowest, time.perf_counter() - sent)
            time.sleep(1 / 30)
        final = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(path)
                            and m["params"].get("version") == version)
        return slowest, float(final[ARRIVED]) - last
    finally:
        client.close()


def _pulls_of_many(env: dict[str, str], root: Path, path: Path, text: str) -> tuple[float, float]:
    """text opened and pulled (LSP 3.17 pull diagnostics) until its analysis is done: the seconds a
    workspace pull then takes, all of its reports full, and the same pull with their result ids."""
    client = _started_on(env, root)[0]
    try:
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": "python", "version": 1,
                                                                "text": text}})
        deadline = time.monotonic() + 600
        while client.request("textDocument/diagnostic", {"textDocument": {"uri": uri(path)}}) is None:
            if time.monotonic() > deadline:  # (None: ServerCancelled, the analysis still runs)
                raise TimeoutError("the pull was never answered")
        sent = time.perf_counter()
        full = client.request("workspace/diagnostic", {"previousResultIds": []})
        first = time.perf_counter() - sent
        known = [{"uri": item["uri"], "value": item["resultId"]} for item in full["items"]]
        sent = time.perf_counter()
        client.request("workspace/diagnostic", {"previousResultIds": known})
        return first, time.perf_counter() - sent
    finally:
        client.close()


def _exit_after_stdin_closes(env: dict[str, str], root: Path) -> float:
    """Seconds from stdin closed, half a second into the first index, to the end of the process."""
    client = Client(env, root)
    client.request("initialize", {"processId": None, "rootUri": uri(root), "capabilities": {}})
    client.notify("initialized", {})
    time.sleep(0.5)
    assert client.process.stdin is not None
    closed = time.perf_counter()
    client.process.stdin.close()
    client.process.wait(60)
    return time.perf_counter() - closed


def _requests_during_index(env: dict[str, str], manifest: Manifest) -> tuple[float, float, int]:
    """An agent file and the skill it lists opened as the server starts, and ten kinds of request
    about them asked one after another until the first index ends: the slowest answer, the slowest
    of the same requests asked once more after the index, and how many were asked during it."""
    client = _initialized(env, Path(manifest.root))
    try:
        agent, skill = Path(manifest.sample_agent), Path(manifest.sample_skill)
        for path, language in ((agent, "python"), (skill, "markdown")):
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri(path), "languageId": language, "version": 1, "text": path.read_text(encoding="utf-8")}})
        in_agent = {"textDocument": {"uri": uri(agent)},
                    "position": {"line": manifest.sample_agent_line, "character": manifest.sample_agent_column + 2}}
        in_skill = {"textDocument": {"uri": uri(skill)}, "position": {"line": 1, "character": 8}}
        asked = [("textDocument/hover", in_agent), ("textDocument/completion", in_agent), ("textDocument/definition", in_agent),
                 ("textDocument/references", {**in_agent, "context": {"includeDeclaration": True}}),
                 ("textDocument/documentSymbol", {"textDocument": in_agent["textDocument"]}),
                 ("textDocument/hover", in_skill), ("textDocument/documentSymbol", {"textDocument": in_skill["textDocument"]}),
                 ("textDocument/documentLink", {"textDocument": in_skill["textDocument"]}),
                 ("textDocument/codeLens", {"textDocument": in_skill["textDocument"]}),
                 ("workspace/symbol", {"query": manifest.sample_skill_name[:4]})]

        def sweep() -> float:
            slowest = 0.0
            for method, params in asked:
                sent = time.perf_counter()
                client.request(method, params)
                slowest = max(slowest, time.perf_counter() - sent)
            return slowest

        during, count = 0.0, 0
        while not _indexed(client):
            during = max(during, sweep())
            count += len(asked)
        return during, sweep(), count
    finally:
        client.close()


def hostile_figures(out: Path, env: dict[str, str], manifest: Manifest, scale: float = 1.0) -> list[Row]:
    """Figure 8; scale shrinks every input (--quick: a tenth)."""
    root = _project(out / "hostile")
    names = int(5000 * scale)
    rows: list[Row] = []
    head = "from agentdeck import Agent\n\n"
    agent = root / "agent.py"
    one_line = head + "a = Agent(name=\"A\", skills=[" + ", ".join(f'"naïve-{n}"' for n in range(names)) + "])\n"
    many_lines = head + "a = Agent(name=\"A\", skills=[\n" + "".join(f'    "naïve-{n}",\n' for n in range(names)) + "])\n"
    hostile = _open_to_diagnostics(env, root, agent, one_line)
    benign = _open_to_diagnostics(env, root, agent, many_lines)
    rows.append(Row("8 5,000 unknown names on one line (UTF-16)", 0, hostile, "s", benign, "on 5,000 lines", "≤ 2× floor"))
    many = int(20000 * scale)
    full, unchanged = _pulls_of_many(env, root, agent, head + "a = Agent(name=\"A\", skills=[" +
                                     ", ".join(f'"naïve-{n}"' for n in range(many)) + "])\n")
    rows.append(Row(f"8 a workspace pull of {many:,} diagnostics", 0, full, "s", unchanged, "the same, unchanged", "≤ 0.5 s"))
    skill = root / ".agentdeck/skills/demo/SKILL.md"
    front = "---\nname: demo\ndescription: Do the demo thing.\n---\n\n"
    link = "see [a guide](references/missing-{}.md) " + "w" * 160
    hostile = _open_to_diagnostics(env, root, skill, front + " ".join(link.format(n) for n in range(names)) + "\n")
    benign = _open_to_diagnostics(env, root, skill, front + "\n".join(link.format(n) for n in range(names)) + "\n")
    rows.append(Row("8 1 MB body line, 5,000 links", 0, hostile, "s", benign, "on 5,000 lines", "≤ 2× floor"))
    paragraph = "## Step\n\nRead the request, then follow the steps carefully, one at a time.\n\n"
    big = front + paragraph * int(7_000_000 * scale // len(paragraph))
    once = _open_to_diagnostics(env, root, skill, big)
    slowest, settled = _edits_at_the_end(env, root, skill, big)
    rows.append(Row("8 7 MB buffer, 30 edits/s: last edit → final diagnostics", 0, settled, "s", once,
                    "one analysis of it", "≤ 3× floor"))
    rows.append(Row("8 7 MB buffer, 30 edits/s: slowest request", 0, slowest, "s", target="≤ 0.5 s"))
    # the same typing at the end of a 7 MB agent file (its parse alone takes a second), with a
    # completion in its skills list, a hover there and its outline
    listed = 'helper = Agent(name="H", instructions="Help.", skills=["demo", "de"])\n'
    filler, size = [], 0
    while size < 7_000_000 * scale:
        filler.append(f'value_{len(filler)} = "a line of ordinary code, with a wörd or two to fill the file"  # {len(filler)}\n')
        size += len(filler[-1])
    code = "from agentdeck import Agent\n\n" + listed + "".join(filler)
    at = {"position": {"line": 2, "character": listed.index('"de"') + 3}}
    slowest, settled = _edits_at_the_end(env, root, root / "big_agent.py", code, [
        ("textDocument/completion", at), ("textDocument/hover", at), ("textDocument/documentSymbol", {})])
    rows.append(Row("8 7 MB agent file, 30 edits/s: slowest request", 0, slowest, "s", target="≤ 0.5 s"))
    during, after, count = _requests_during_index(env, manifest)
    rows.append(Row("8 requests during the first index: slowest", manifest.skills, during, "s", after,
                    "the same after it", "≤ 0.5 s", extra={"requests": count}))
    rows.append(Row("8 stdin closed mid-index → process ended", manifest.skills, _exit_after_stdin_closes(env, Path(manifest.root)),
                    "s", target="≤ 2 s"))
    return rows


# -- the run ----------------------------------------------------------------------------------------


def check_command(root: str) -> list[str]:
    return [PYTHON, "-m", "skill_lsp", "check", "-q", root]


def check_figures(manifest: Manifest, env: dict[str, str], repeat: int, skills_ref: bool) -> list[Row]:
    root = manifest.root
    size = manifest.skills
    check = check_command(root)
    rows: list[Row] = []
    cold, floor, rss = interleaved([*check, "--no-cache"], [PYTHON, FLOORS, "read-parse", root], env, repeat)
    rows.append(Row("1 cold check", size, cold, "s", floor, "read+compose", "≤ 1.5× floor"))
    timed(check, env)  # fills the cache
    warm, stat_floor, _ = interleaved(check, [PYTHON, FLOORS, "stat", root], env, repeat)
    rows.append(Row("2 warm check (cache)", size, warm, "s", stat_floor, "walk+stat", "≤ 2× floor"))
    rows.append(Row("6 peak RSS: check", size, rss, "MB", target="≤ 200 MB"))
    if skills_ref:
        wall, _ = best_of([PYTHON, FLOORS, "skills-ref", root], env, 1)
        rows.append(Row("7 skills-ref validate (cold)", size, wall, "s", cold, "our cold check", "≥ 10× our cold check"))
    return rows


def variant_tree(tree: str, out: Path) -> str:
    """A variant's source tree: TREE itself when it is a directory, else a git revision of this
    repository checked out (detached, once) under OUT/variants/REV: `--variant "hand-made walk=3b8eb90"`."""
    if Path(tree).is_dir():
        return tree
    checkout = out / "variants" / tree
    if not checkout.is_dir():
        checkout.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(HERE.parent), "worktree", "add", "--detach", str(checkout), tree], check=True,
                       stdout=subprocess.DEVNULL)
    return str(checkout)


def variant_figures(manifest: Manifest, env: dict[str, str], repeat: int, variants: dict[str, str]) -> list[Row]:
    """Figure 1's variants, each run in turn with our cold check so that load hits all alike: the same
    check in one process (no pool: what parallelism buys), and each --variant, another source tree of
    skill-lsp (a checkout of an earlier commit: the hand-made pool it replaced). The floor is our cold
    check of the same rounds, so the ratio says how much slower (> 1) or faster (< 1) the variant is;
    the spread of our own runs is their noise."""
    check = [*check_command(manifest.root), "--no-cache"]
    runs = {"one process": {**env, "SKILL_LSP_CHILDREN": "0"}}
    for label, tree in variants.items():
        runs[label] = {**env, "PYTHONPATH": tree}
    ours: list[float] = []
    theirs: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(repeat):
        ours.append(timed(check, env)[0])
        for label, variant_env in runs.items():
            theirs[label].append(timed(check, variant_env)[0])
    best = min(ours)
    print(f"# cold check at {manifest.skills:,}: ours {', '.join(f'{wall:.3f}' for wall in ours)} s "
          f"(spread {(max(ours) - best) / best:.0%})", file=sys.stderr)
    rows = []
    for label, walls in theirs.items():
        print(f"#   {label}: {', '.join(f'{wall:.3f}' for wall in walls)} s", file=sys.stderr)
        rows.append(Row(f"1 cold check: {label}", manifest.skills, min(walls), "s", best, "our cold check",
                        extra={"spread": (max(walls) - min(walls)) / min(walls), "our spread": (max(ours) - best) / best}))
    return rows


def judge(rows: list[Row]) -> None:
    by_size: dict[int, dict[str, Row]] = {}
    for row in rows:
        by_size.setdefault(row.size, {})[row.figure] = row
    sizes = sorted(size for size in by_size if size)  # (figure 8's buffers have no workspace size: 0)
    for row in rows:
        ratio = row.ratio
        if row.figure == "1 cold check" and ratio is not None:
            row.met = ratio <= 1.5
        elif row.figure.startswith("2 ") and ratio is not None:
            row.met = ratio <= 2.0
        elif row.figure.startswith("4 "):
            smallest = by_size[sizes[0]].get(row.figure)
            row.target = "p50 ≤ 20 ms" + (f", ≤ 1.5× the {sizes[0]:,} figure" if row.size != sizes[0] else "")
            row.met = row.value <= 20 and (smallest is None or row.value <= 1.5 * max(smallest.value, 1.0))
            if smallest is not None and row.size != sizes[0]:
                row.floor, row.floor_label = smallest.value, f"same at {sizes[0]:,}"
        elif row.figure.startswith("5 "):
            row.target = "p50 ≤ 10 ms"
            row.met = row.value <= 10
        elif row.figure.startswith("6 "):
            row.target = "≤ 200 MB"
            row.met = row.value <= 200
        elif row.figure.startswith("7 ") and row.floor:
            row.met = row.value >= 10 * row.floor
        elif row.figure.startswith("3 "):
            row.target = "≤ 1.5× cold check"
            if row.floor:
                row.met = row.value <= 1.5 * row.floor
        elif row.figure.startswith("8 "):
            limit = {"≤ 2× floor": 2.0, "≤ 3× floor": 3.0}.get(row.target)
            if limit is not None and row.floor:
                row.met = row.value <= limit * row.floor
            elif row.target == "≤ 0.5 s":
                row.met = row.value <= 0.5
            elif row.target == "≤ 2 s":
                row.met = row.value <= 2.0


def table(rows: list[Row]) -> str:
    lines = ["| figure | skills | skill-lsp | floor | ratio | target | met |", "|---|---:|---:|---|---:|---|:-:|"]
    for row in rows:
        value = f"{row.value:.3f} {row.unit}" if row.unit == "s" else f"{row.value:.1f} {row.unit}"
        if "p95" in row.extra:
            value += f" (p95 {row.extra['p95']:.1f})"
        floor = ""
        if row.floor is not None:
            shown = f"{row.floor:.3f} s" if row.unit == "s" else f"{row.floor:.1f} {row.unit}"
            floor = f"{shown} {row.floor_label}"
        ratio = f"{row.ratio:.2f}×" if row.ratio is not None else ""
        met = {True: "yes", False: "**no**", None: ""}[row.met]
        lines.append(f"| {row.figure} | {row.size:,} | {value} | {floor} | {ratio} | {row.target} | {met} |")
    return "\n".join(lines)


def chart(rows: list[Row], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install skill-lsp[bench]): no chart", file=sys.stderr)
        return
    panels = [
        ("1–2, 7: check (s)", [("1 cold check", "cold check", False), ("1 cold check", "read+compose floor", True),
                               ("2 warm check (cache)", "warm check", False), ("2 warm check (cache)", "walk+stat floor", True),
                               ("7 skills-ref validate (cold)", "skills-ref", False)]),
        ("3: server start → diagnostics (s)", [("3 server start → workspace diagnostics", "server", False),
                                               ("3 server start → workspace diagnostics", "cold check", True)]),
        ("4: didChange → diagnostics, p50 (ms)", [(f"4 didChange → diagnostics: {k}", k, False)
                                                 for k in ("SKILL.md edit", "SKILL.md name edit", "agent file edit",
                                                           "agent file edit, new unknown name")]),
        ("5: requests, p50 (ms)", [(f"5 {k}", k, False) for k in ("hover", "completion", "definition", "references")]),
        ("6: peak RSS (MB)", [("6 peak RSS: server", "server", False), ("6 peak RSS: check", "check", False)]),
    ]
    figure, axes = plt.subplots(1, len(panels), figsize=(17, 3.6))
    for axis, (title, series) in zip(axes, panels, strict=False):
        for figure_name, label, use_floor in series:
            points = sorted((row.size, row.floor if use_floor else row.value) for row in rows
                            if row.figure == figure_name and (row.floor if use_floor else row.value) is not None)
            if points:
                axis.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                          linestyle="--" if use_floor else "-", label=label)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(title, fontsize=9)
        axis.set_xlabel("skills in the workspace", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=80)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated numbers of skills")
    parser.add_argument("--quick", action="store_true", help="a small smoke run: 200 skills, one repetition")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timed process (best is kept)")
    parser.add_argument("--samples", type=int, default=30, help="requests and edits timed per latency figure")
    parser.add_argument("--out", type=Path, default=HERE / "out", help="corpora, caches and results")
    parser.add_argument("--chart", type=Path, help="where to write the chart (default OUT/benchmark.png)")
    parser.add_argument("--no-skills-ref", action="store_true", help="skip figure 7")
    parser.add_argument("--variant", action="append", default=[], metavar="LABEL=TREE",
                        help="figure 1 again with another source tree of skill-lsp (run with PYTHONPATH=TREE; a git "
                             "revision instead of a directory is checked out under OUT/variants), alternating with "
                             "ours; repeatable")
    parser.add_argument("--figures", default="1,2,3,4,5,6,7,8",
                        help="comma-separated figures to measure (1-2 and 7 run check, 3-6 and 8 the server; 6 needs either)")
    args = parser.parse_args(argv)
    sizes = [200] if args.quick else [int(part) for part in args.sizes.split(",") if part.strip()]
    repeat = 1 if args.quick else args.repeat
    samples = 5 if args.quick else args.samples
    figures = {part.strip() for part in args.figures.split(",") if part.strip()}
    variants = {label: variant_tree(tree, args.out) for label, tree in (item.split("=", 1) for item in args.variant)}
    for tree in variants.values():  # compiled as ours is (compile_bytecode)
        import compileall

        compileall.compile_dir(str(Path(tree) / "skill_lsp"), quiet=1)
    run_check = bool(figures & {"1", "2", "7"}) or figures == {"6"}
    run_server = bool(figures & {"3", "4", "5", "6"})
    skills_ref = not args.no_skills_ref and "7" in figures
    if skills_ref:
        try:
            import skills_ref as _  # noqa: F401
        except ImportError:
            print("skills-ref is not installed (pip install skill-lsp[bench]): figure 7 skipped", file=sys.stderr)
            skills_ref = False
    args.out.mkdir(parents=True, exist_ok=True)
    compile_bytecode()
    rows: list[Row] = []
    for size in sizes:
        manifest = ensure_corpus(args.out / f"corpus-{size}", size)
        # a file changed in the last seconds is not cached (its mtime may not move on the next edit)
        age = time.time() - Path(manifest.sample_skill).stat().st_mtime
        if age < 2.5:
            time.sleep(2.5 - age)
        cache = args.out / f"cache-{size}"
        shutil.rmtree(cache, ignore_errors=True)
        env = environment(cache)
        print(f"# {size:,} skills, {manifest.agents:,} agent files", file=sys.stderr)
        if run_check:
            rows += check_figures(manifest, env, repeat, skills_ref)
        if "1" in figures:
            rows += variant_figures(manifest, env, repeat, variants)
        if run_server:
            rows += server_figures(manifest, env, samples, repeat)
        if "8" in figures and size == sizes[0]:  # hostile buffers: once, beside the smallest corpus
            rows += hostile_figures(args.out, env, manifest, 0.1 if args.quick else 1.0)
    rows = [row for row in rows if row.figure.split(" ", 1)[0] in figures]
    rows.sort(key=lambda row: (row.figure, row.size))
    judge(rows)
    text = table(rows)
    print(text)
    (args.out / "results.md").write_text(text + "\n", encoding="utf-8")
    (args.out / "results.json").write_text(json.dumps([{**row.__dict__, "ratio": row.ratio} for row in rows], indent=1),
                                           encoding="utf-8")
    chart(rows, args.chart or args.out / "benchmark.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
