"""Builds bundled/libs: the skill-lsp server and its Python dependencies for one VS Code target.

    python3 scripts/bundle.py [--target linux-x64] [--pythons 3.10,3.11,...] [--out DIR]

The server is built as a wheel from this repository, then installed with its dependencies from
the registry's wheels (never built from source, so a cross-target build is the same as a native
one) once per Python version, into build/stage/cp3XY. uv does the installing because, unlike
`pip install --target --platform`, it evaluates each dependency's environment markers for the
target (cattrs needs exceptiongroup on 3.10 only), not for the Python running this script. The
oldest version is installed first and its versions are the constraints of the others, so that
every Python runs the same libraries (and they can be shipped once); a version that cannot have
one of them (no wheel of that release for it) gets its own of that one. A version with no wheels
for the target is left out, with a warning.

The stages are then folded into one copy (scripts/fold.py): bundled/libs/common holds each
distribution that is the same in every version (pure Python, abi3 wheels, and the compiled
modules of the others side by side, each named for its Python: `_yaml.cpython-312-*.so`), and
bundled/libs/cp3XY only what differs. The launcher (bundled/tool/launch.py) puts cp3XY, then
common, on `sys.path`. bundled/libs/manifest.json records the target, the versions and the
modules the launcher imports to check an interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from fold import fold

CLIENT = Path(__file__).resolve().parent.parent
REPOSITORY = CLIENT.parent
BUNDLE = CLIENT / "bundled" / "libs"
WORK = CLIENT / "build"
SHARED = "common"  # bundled/libs/common: what every version shares (the launcher names it too)

# VS Code's platform targets (`vsce package --target`) and the platform uv resolves wheels for.
# manylinux_2_28 (glibc 2.28: Debian 10, Ubuntu 20.04, RHEL 8): rapidfuzz has no older tag for
# Python 3.14. Alpine is not a target: watchdog publishes no musllinux wheel.
TARGETS = {
    "linux-x64": "x86_64-manylinux_2_28",
    "linux-arm64": "aarch64-manylinux_2_28",
    "darwin-x64": "x86_64-apple-darwin",
    "darwin-arm64": "aarch64-apple-darwin",
    "win32-x64": "x86_64-pc-windows-msvc",
    "win32-arm64": "aarch64-pc-windows-msvc",
}
PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]
UV_REQUIREMENT = "uv>=0.9,<1"
# Imported by `launch.py --check`, compiled modules first: a wrong ABI or platform shows there.
# rapidfuzz falls back to Python code when its compiled modules fail to load: one of them is named.
CHECK = ["yaml", "tree_sitter", "rapidfuzz.process_cpp_impl", "watchdog.observers", "pygls.lsp.server", "skill_lsp.cli", "skill_lsp.server.app"]


def current_target() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    return f"{system}-{arch}"


def log(message: str) -> None:
    print(f"[bundle] {message}", file=sys.stderr, flush=True)


def uv() -> str:
    """uv from PATH, else from a virtual environment of its own under build/ (made once)."""
    found = shutil.which("uv")
    if found:
        return found
    home = WORK / "uv-venv"
    binary = home / ("Scripts/uv.exe" if os.name == "nt" else "bin/uv")
    if not binary.exists():
        log(f"installing {UV_REQUIREMENT} into {home}")
        venv.create(home, with_pip=True, clear=True)
        python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        subprocess.run([str(python), "-m", "pip", "install", "-q", UV_REQUIREMENT], check=True)
    return str(binary)


def build_wheel(uv_binary: str) -> Path:
    out = WORK / "wheel"
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([uv_binary, "build", "--no-config", "--wheel", "--out-dir", str(out), str(REPOSITORY)], check=True)
    wheels = sorted(out.glob("skill_lsp-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one skill_lsp wheel in {out}, found {[w.name for w in wheels]}")
    return wheels[0]


def install(uv_binary: str, wheel: Path, python: str, uv_platform: str, into: Path, pinned: list[str]) -> bool:
    """Installs the server's wheel for one Python into `into`, with as many of the `name==version` pins as it can have."""
    command = [
        uv_binary, "pip", "install", "--no-config", "--quiet",
        "--target", str(into),
        "--python-version", python,
        "--python-platform", uv_platform,
        "--only-binary", ":all:",
        str(wheel),
    ]  # fmt: skip
    constraints = into.parent / f"constraints-{into.name}.txt"
    into.parent.mkdir(parents=True, exist_ok=True)

    def run(pins: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
        constraints.write_text("".join(pin + "\n" for pin in pins), encoding="utf-8")
        return subprocess.run([*command, "--constraints", str(constraints), *extra], capture_output=True, text=True)

    result = run(pinned)
    if result.returncode != 0 and pinned:
        # a pin without a wheel for this version (one compiled per version, published for the older ones only):
        # keep each pin that still resolves with those kept before it, in turn
        kept: list[str] = []
        for pin in pinned:
            if run([*kept, pin], "--dry-run").returncode == 0:
                kept.append(pin)
        log(f"Python {python} cannot have {', '.join(pin for pin in pinned if pin not in kept)}: it gets its own")
        shutil.rmtree(into, ignore_errors=True)
        result = run(kept)
    if result.returncode != 0:
        reason = result.stderr.strip().splitlines()[-1:] or ["uv failed"]
        log(f"WARNING: Python {python} left out of this build: {reason[0]}")
        shutil.rmtree(into, ignore_errors=True)
        return False
    # Console scripts carry this machine's interpreter in their first line; the launcher is the
    # way in. Byte code is written by the user's interpreter on first run; .lock is uv's.
    (into / ".lock").unlink(missing_ok=True)
    shutil.rmtree(into / "bin", ignore_errors=True)
    shutil.rmtree(into / "Scripts", ignore_errors=True)
    for cache in list(into.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)
    return True


def grammar_modules(libs: Path) -> list[str]:
    return sorted(path.name for path in libs.iterdir() if path.is_dir() and path.name.startswith("tree_sitter_") and path.name.isidentifier())


def pins(stage: Path) -> list[str]:
    """The versions installed in stage, `name==version`, from the .dist-info names."""
    return [info.name.removesuffix(".dist-info").replace("-", "==", 1) for info in sorted(stage.glob("*.dist-info"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default=current_target(), choices=sorted(TARGETS), help="VS Code target (default: this machine's)")
    parser.add_argument("--pythons", default=",".join(PYTHONS), help="comma-separated Python versions (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=BUNDLE, help="the directory to build (default: bundled/libs)")
    args = parser.parse_args()
    if args.target not in TARGETS:
        parser.error(f"no bundle for {args.target}; targets: {', '.join(sorted(TARGETS))}")

    uv_binary = uv()
    wheel = build_wheel(uv_binary)
    staging = WORK / "stage"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    versions = sorted({v.strip() for v in args.pythons.split(",") if v.strip()}, key=lambda v: tuple(map(int, v.split("."))))
    built: list[str] = []
    pinned: list[str] = []
    for python in versions:
        into = staging / ("cp" + python.replace(".", ""))
        log(f"{args.target}: Python {python} -> {into.relative_to(CLIENT)}")
        if install(uv_binary, wheel, python, TARGETS[args.target], into, pinned):
            built.append(python)
            pinned = pinned or pins(into)
    if not built:
        raise SystemExit(f"no Python version could be bundled for {args.target}")
    stages = [staging / ("cp" + python.replace(".", "")) for python in built]
    grammars = set().union(*(grammar_modules(stage) for stage in stages))
    shared = fold(stages, args.out / SHARED, {stage: args.out / stage.name for stage in stages})
    log(f"shipped once for Python {', '.join(built)}: {', '.join(name.removesuffix('.dist-info') for name in shared)}")
    check = CHECK[:2] + sorted(grammars) + CHECK[2:]
    manifest = {"target": args.target, "platform": TARGETS[args.target], "pythons": built, "shared": SHARED, "check": check}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log(f"bundled skill-lsp for {args.target}, Python {', '.join(built)}")
    print(args.target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
