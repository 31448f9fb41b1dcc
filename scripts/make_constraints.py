"""Write `constraints.txt`: the exact versions the tests passed with.

    python scripts/make_constraints.py           # rewrite it from this environment
    python scripts/make_constraints.py --check   # exit 1 when a dependency lacks a pin

Every distribution that `hollywood-gin[dev,bots]` and its build backend need, walked
from `pyproject.toml` through the installed packages' own requirements, pinned
to the version installed here. CI, the README and the Dockerfile install with
`-c constraints.txt`, so a fresh install cannot pick versions nobody tested.
Run it after changing a dependency (and re-running the tests).
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "constraints.txt"
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
