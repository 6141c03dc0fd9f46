"""The VS Code extension's bundle of the server: one copy of what the Python versions share, and a server that runs.

The folding (vscode-client/scripts/fold.py) is tested on installs made up here; the slow test builds the real
bundle from the registry's wheels (vscode-client/scripts/bundle.py) and runs its server, through the extension's
launcher, with each CPython 3.10+ this machine has.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pytest_lsp import ClientServerConfig

from .lsp.conftest import (
    PROJECT,
    codes,
    diagnostics_for,
    end,
    initialize_params,
    open_document,
    tolerate_abandoned_waits,
    wait_for_index,
)

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "vscode-client"


def load_fold() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fold", CLIENT / "scripts" / "fold.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["fold"] = module
    spec.loader.exec_module(module)
    return module


fold = load_fold()


def install(stage: Path, name: str, version: str, files: dict[str, bytes]) -> None:
    """A distribution as an installer leaves it: its files and a .dist-info whose RECORD lists them."""
    info = f"{name}-{version}.dist-info"
    tag = stage.name
    files = {**files, f"{info}/METADATA": f"Name: {name}\nVersion: {version}\n".encode(), f"{info}/WHEEL": f"Tag: {tag}\n".encode()}
    for path, content in files.items():
        (stage / path).parent.mkdir(parents=True, exist_ok=True)
        (stage / path).write_bytes(content)
    record = [f"{path},sha256=x,{len(content)}" for path, content in files.items()] + [f"{info}/RECORD,,"]
    (stage / info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")


def tree(directory: Path) -> list[str]:
    return sorted(path.relative_to(directory).as_posix() for path in directory.rglob("*") if path.is_file())


def test_shared_distributions_are_kept_once_and_compiled_modules_once_per_version(tmp_path: Path) -> None:
    stages = [tmp_path / "stage" / tag for tag in ("cp310", "cp312")]
    for stage in stages:
        version = stage.name[2:]
        install(stage, "pure", "1.0", {"pure/__init__.py": b"x = 1\n"})
        install(stage, "grammar", "0.23", {"grammar/__init__.py": b"", "grammar/_binding.abi3.so": b"ELF abi3"})
        install(stage, "native", "2.0", {"native/__init__.py": b"", f"native/_c.cpython-{version}-x86_64-linux-gnu.so": b"ELF " + version.encode(),
                                         "native-2.0.dist-info/DELVEWHEEL": f"Arguments: repair cp{version}\n".encode()})
        # a newer release for 3.12 than for 3.10: each keeps its own
        install(stage, "drifted", "3.0" if version == "310" else "3.1", {"drifted.py": b"v = '" + version.encode() + b"'\n"})
    install(stages[0], "backport", "1.3", {"backport/__init__.py": b""})  # a marker for 3.10 only
    out = tmp_path / "libs"

    shared = fold.fold(stages, out / "common", {stage: out / stage.name for stage in stages})

    assert shared == ["grammar-0.23.dist-info", "native-2.0.dist-info", "pure-1.0.dist-info"]
    common = tree(out / "common")
    assert [path for path in common if not path.split("/")[0].endswith(".dist-info")] == [
        "grammar/__init__.py", "grammar/_binding.abi3.so",
        "native/__init__.py", "native/_c.cpython-310-x86_64-linux-gnu.so", "native/_c.cpython-312-x86_64-linux-gnu.so",
        "pure/__init__.py",
    ]  # fmt: skip
    # the shared .dist-info lists the files and tags of both versions' wheels
    assert (out / "common" / "native-2.0.dist-info" / "WHEEL").read_text() == "Tag: cp310\nTag: cp312\n"
    assert (out / "common" / "native-2.0.dist-info" / "DELVEWHEEL").read_text() == "Arguments: repair cp310\nArguments: repair cp312\n"
    record = (out / "common" / "native-2.0.dist-info" / "RECORD").read_text()
    assert "native/_c.cpython-310-x86_64-linux-gnu.so" in record and "native/_c.cpython-312-x86_64-linux-gnu.so" in record
    assert [path for path in tree(out / "cp310") if not path.endswith(("RECORD", "WHEEL", "METADATA"))] == [
        "backport/__init__.py", "drifted.py"]
    assert tree(out / "cp312") == ["drifted-3.1.dist-info/METADATA", "drifted-3.1.dist-info/RECORD",
                                   "drifted-3.1.dist-info/WHEEL", "drifted.py"]


def test_a_module_that_differs_without_a_version_in_its_name_keeps_the_distribution_per_version(tmp_path: Path) -> None:
    """An untagged compiled module (`_c.so`) or Python file that differs between versions cannot be shared."""
    stages = [tmp_path / "stage" / tag for tag in ("cp310", "cp311")]
    for stage in stages:
        install(stage, "untagged", "1.0", {"untagged/__init__.py": b"", "untagged/_c.so": stage.name.encode()})
        install(stage, "extra", "1.0", {"extra/__init__.py": b""} | ({"extra/compat.py": b""} if stage.name == "cp310" else {}))
    out = tmp_path / "libs"

    assert fold.fold(stages, out / "common", {stage: out / stage.name for stage in stages}) == []
    assert not (out / "common").exists()
    for stage in stages:
        assert "untagged/_c.so" in tree(out / stage.name)


def test_a_distribution_sharing_a_package_with_one_kept_per_version_is_kept_per_version_too(tmp_path: Path) -> None:
    """Two distributions writing into one package: the package is never split between the two directories."""
    stages = [tmp_path / "stage" / tag for tag in ("cp310", "cp311")]
    for stage in stages:
        install(stage, "base", "1.0", {"ns/base.py": b""})
        install(stage, "plugin", "1.0" if stage.name == "cp310" else "1.1", {"ns/plugin.py": b""})
    out = tmp_path / "libs"

    assert fold.fold(stages, out / "common", {stage: out / stage.name for stage in stages}) == []
    assert "ns/base.py" in tree(out / "cp310") and "ns/base.py" in tree(out / "cp311")


def cpythons() -> dict[str, str]:
    """One interpreter per CPython version 3.10+ found here: this one, PATH's python3.X, pyenv's versions."""
    candidates = [sys.executable, *(shutil.which(f"python3.{minor}") or "" for minor in range(10, 20)),
                  *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")))]
    found: dict[str, str] = {}
    for candidate in filter(None, candidates):
        done = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2], sys.implementation.name)"],
                              capture_output=True, text=True)
        version, _, implementation = done.stdout.strip().partition(" ")
        if done.returncode == 0 and implementation == "cpython" and tuple(map(int, version.split("."))) >= (3, 10):
            found.setdefault(version, candidate)
    return found


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The real bundle, built for this machine and the CPythons found here, beside a copy of the launcher: the
    launcher, and the interpreters by version."""
    pythons = cpythons()
    extension = tmp_path_factory.mktemp("extension")
    (extension / "bundled" / "tool").mkdir(parents=True)
    shutil.copy(CLIENT / "bundled" / "tool" / "launch.py", extension / "bundled" / "tool" / "launch.py")
    libs = extension / "bundled" / "libs"
    subprocess.run([sys.executable, str(CLIENT / "scripts" / "bundle.py"), "--pythons", ",".join(pythons), "--out", str(libs)],
                   check=True, capture_output=True)
    assert json.loads((libs / "manifest.json").read_text())["pythons"] == sorted(pythons, key=lambda v: int(v.split(".")[1]))
    return extension / "bundled" / "tool" / "launch.py", pythons


def environment() -> dict[str, str]:
    """The test's isolated user skills and cache; without PYTHONPATH (which `-I` ignores anyway)."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


@pytest.mark.slow
def test_the_bundled_server_checks_the_examples_under_each_python(bundle: tuple[Path, dict[str, str]]) -> None:
    """The bundle holds the TypeScript grammar once and runs `check examples/` with each Python as the installed
    skill-lsp does (the launcher's `-I` run)."""
    launch, pythons = bundle
    libs = launch.parent.parent / "libs"
    assert len(list(libs.rglob("tree_sitter_typescript/_binding*"))) == 1
    expected = subprocess.run([sys.executable, "-m", "skill_lsp", "check", "examples/"], cwd=ROOT, capture_output=True, text=True)
    assert expected.returncode == 1 and "SK" in expected.stdout
    for version, python in pythons.items():
        launcher = [python, "-I", str(launch)]
        probe = json.loads(subprocess.run([*launcher, "--check"], capture_output=True, text=True, env=environment()).stdout)
        assert probe["ok"] and probe["python"].startswith(version + ".") and probe["yamlLoader"] == "C", probe
        assert Path(probe["serverPath"]).is_relative_to(libs), probe
        done = subprocess.run([*launcher, "--", "check", "examples/"], cwd=ROOT, capture_output=True, text=True, env=environment())
        assert (done.returncode, done.stdout) == (expected.returncode, expected.stdout), f"Python {version}: {done.stderr}"


@pytest.mark.slow
async def test_the_bundled_server_serves_under_each_python(bundle: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """`launch.py -- serve`, as the extension starts it, with each Python: initialize, the first index, and a
    SKILL.md without a description opened gets SK106."""
    launch, pythons = bundle
    for version, python in pythons.items():
        workspace = tmp_path / version / "project"
        shutil.copytree(PROJECT, workspace)
        client = await ClientServerConfig(server_command=[python, "-I", str(launch), "--", "serve"],
                                          server_env=environment()).start()
        try:
            tolerate_abandoned_waits(client)
            result = await client.initialize_session(initialize_params("visual-studio-code", workspace))
            assert result.server_info is not None and result.server_info.name == "skill-lsp", version
            await wait_for_index(client)
            broken = workspace / ".agentdeck/skills/broken/SKILL.md"
            open_document(client, broken)
            assert codes(await diagnostics_for(client, broken, lambda found: bool(found))) == ["SK106"], version
        finally:
            await end(client)
