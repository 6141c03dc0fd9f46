"""Starts the skill-lsp server bundled in the VS Code extension with the Python that runs this file.

The extension runs `python -I launch.py [--import-strategy S] [--check] -- ARGS...`. `-I` keeps the
workspace out of `sys.path` (no current directory, no PYTHONPATH, no user site-packages): the
workspace's files are what the server reads, never code it imports. This file then puts the
libraries built for this interpreter's version on `sys.path` (made by `scripts/bundle.py` from the
registry's wheels): `../libs/cp3XY`, what only this version uses, then `../libs/common`, what every
version shares (pure Python, abi3 modules, and compiled modules named for their Python version):

- `useBundled` (the default): before the interpreter's own site-packages, so the bundled server
  and its dependencies win;
- `fromEnvironment`: after them, so a skill-lsp installed in that environment is used, and the
  bundle fills in only what it lacks.

`--check` imports what the server needs, compiled modules first, and prints one JSON line:
`{"ok": true, "python": "3.12.4", ...}` or `{"ok": false, "error": "..."}` (exit status 0 or 1).
The extension runs it on every interpreter it considers before choosing one.

Kept to the syntax of Python 3.6 so that an old interpreter gets the version message, not a
SyntaxError.
"""

import json
import os
import sys
import sysconfig

MINIMUM = (3, 10)
HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLE = os.path.join(os.path.dirname(HERE), "libs")
STRATEGIES = ("useBundled", "fromEnvironment")


def version_text():
    return "{}.{}.{}".format(*sys.version_info[:3])


def manifest():
    """What scripts/bundle.py built: target, Python versions and the modules to check."""
    try:
        with open(os.path.join(BUNDLE, "manifest.json"), encoding="utf-8") as stream:
            return json.load(stream)
    except (OSError, ValueError) as error:
        raise LaunchError(f"the extension's bundled libraries are missing or damaged ({error})") from None


class LaunchError(Exception):
    """A reason this interpreter cannot run the bundled server, worded for the user."""


def libraries(built):
    """The directories of libraries for this interpreter, after the checks that need no import."""
    if sys.version_info[:2] < MINIMUM:
        raise LaunchError("Python {} is too old: skill-lsp needs Python {}.{} or later".format(version_text(), *MINIMUM))
    if sys.implementation.name != "cpython":
        raise LaunchError(f"{sys.implementation.name} is not CPython: the bundled libraries are CPython wheels")
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        raise LaunchError(f"Python {version_text()} is a free-threaded build, which the bundled wheels do not support")
    if "{}.{}".format(*sys.version_info[:2]) not in built.get("pythons", []):
        raise LaunchError(
            "no bundled libraries for Python {}.{} in this {} build of the extension (it has {})".format(
                sys.version_info[0], sys.version_info[1], built.get("target", "?"), ", ".join(built.get("pythons", [])) or "none"
            )
        )
    found = [os.path.join(BUNDLE, name) for name in ("cp{}{}".format(*sys.version_info[:2]), built.get("shared", "common"))]
    return [path for path in found if os.path.isdir(path)]


def use(paths, strategy):
    if strategy == "fromEnvironment":
        sys.path.extend(paths)
    else:
        sys.path[0:0] = paths


def check(built):
    """Imports each module the bundle lists (compiled ones show an ABI or platform mismatch here)."""
    for module in built.get("check", []):
        try:
            __import__(module)
        except Exception as error:  # an ImportError, or an OSError from a compiled module
            raise LaunchError(
                f"Python {version_text()} ({sysconfig.get_platform()}) cannot load the bundled '{module}': {type(error).__name__}: {error}"
            ) from None
    import yaml  # the server falls back to PyYAML's pure-Python loader; say which one is in use

    import skill_lsp

    return {
        "ok": True,
        "python": version_text(),
        "executable": sys.executable,
        "server": getattr(skill_lsp, "__version__", "?"),
        "serverPath": os.path.dirname(skill_lsp.__file__),
        "yamlLoader": "C" if hasattr(yaml, "CSafeLoader") else "pure Python",
    }


def parse(argv):
    strategy = "useBundled"
    checking = False
    rest = list(argv)
    while rest and rest[0] != "--":
        option = rest.pop(0)
        if option == "--check":
            checking = True
        elif option == "--import-strategy" and rest:
            strategy = rest.pop(0)
            if strategy not in STRATEGIES:
                raise LaunchError("unknown import strategy '{}' (use {})".format(strategy, " or ".join(STRATEGIES)))
        else:
            raise LaunchError(f"unknown option '{option}'")
    return strategy, checking, rest[1:]


def main(argv):
    checking = "--check" in argv
    try:
        strategy, checking, server_args = parse(argv)
        built = manifest()
        use(libraries(built), strategy)
        if checking:
            print(json.dumps(check(built)))
            return 0
    except LaunchError as error:
        if checking:
            print(json.dumps({"ok": False, "python": version_text(), "executable": sys.executable, "error": str(error)}))
        else:
            print(f"skill-lsp launcher: {error}", file=sys.stderr)
        return 1
    from skill_lsp.cli import run

    sys.argv = ["skill-lsp", *server_args]
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
