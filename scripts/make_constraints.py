"""Write `constraints.txt`: the exact versions the tests passed with, and
`requirements.lock`: the same versions of what the server needs, with hashes.

    python scripts/make_constraints.py           # rewrite both from this environment
    python scripts/make_constraints.py --check   # exit 1 when constraints.txt is stale

Every distribution that `hollywood-gin[dev,bots]` and its build backend need, walked
from `pyproject.toml` through the installed packages' own requirements, pinned
to the version installed here. CI, the README and the Dockerfile install with
`-c constraints.txt`, so a fresh install cannot pick versions nobody tested.
Run it after changing a dependency (and re-running the tests).

Hashes live in a file of their own: pip turns on hash-checking for a whole install as
soon as one line of a `-c` file has a `--hash`, and then refuses every requirement
without one (`-e .` among them), so `constraints.txt` stays a plain list of pins.
`requirements.lock` is the server's dependencies (with the `postgres` extra) at those
pins, each with the sha256 of every file PyPI has for it (every platform, `uv pip
compile --universal --generate-hashes`): `pip install --require-hashes -r
requirements.lock` refuses any file that is not one of them (the Dockerfile, the
systemd set-up in the README).
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "constraints.txt"
LOCK = ROOT / "requirements.lock"
LOCK_EXTRAS = ("postgres",)
EXTRAS = ("dev", "bots")


def roots() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    specs = list(project["project"]["dependencies"])
    for extra in EXTRAS:
        specs += project["project"]["optional-dependencies"][extra]
    specs += project["build-system"]["requires"]
    return [Requirement(s) for s in specs]


def closure() -> dict[str, str]:
    """name -> installed version, for every distribution the roots need here."""
    pins: dict[str, str] = {}
    todo: list[tuple[Requirement, frozenset[str]]] = [(r, frozenset(r.extras)) for r in roots()]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        requirement, extras = todo.pop()
        name = canonicalize_name(requirement.name)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            dist = md.distribution(requirement.name)
        except md.PackageNotFoundError:
            missing = f"{requirement.name} is not installed: pip install -e '.[dev,bots]'"
            raise SystemExit(missing) from None
        pins[name] = dist.version
        for text in dist.requires or []:
            child = Requirement(text)
            wanted = {"extra": ""}
            if child.marker is not None and not any(
                child.marker.evaluate({**wanted, "extra": e}) for e in ("", *extras)
            ):
                continue
            todo.append((child, frozenset(child.extras)))
    pins.pop("hollywood-gin", None)
    return pins


def render(pins: dict[str, str]) -> str:
    lines = [
        "# The versions the test suite passed with; `python scripts/make_constraints.py`",
        "# writes this file. Install with `-c constraints.txt` (README, .ci/run, Dockerfile).",
    ]
    lines += [f"{name}=={version}" for name, version in sorted(pins.items())]
    return "\n".join(lines) + "\n"


def write_lock() -> None:
    """requirements.lock from pyproject.toml at constraints.txt's versions, hashed."""
    command = [
        *(sys.executable, "-m", "uv", "pip", "compile", "pyproject.toml", "--quiet"),
        *(f"--extra={extra}" for extra in LOCK_EXTRAS),
        *("--constraint", "constraints.txt", "--universal", "--python-version", "3.11"),
        *("--generate-hashes", "--output-file", LOCK.name),
        *("--custom-compile-command", "python scripts/make_constraints.py"),
    ]
    subprocess.run(command, cwd=ROOT, check=True, timeout=600)
    print(f"wrote {LOCK}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = render(closure())
    if args.check:
        if TARGET.read_text() != text:
            print("constraints.txt differs from this environment", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET} ({text.count(chr(10)) - 2} pins)")
    write_lock()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
