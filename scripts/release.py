"""Cut a release: `python scripts/release.py X.Y.Z`.

One command, from a clean checkout of the branch to release (README, "Releases"):

1. sets `__version__ = "X.Y.Z"` in hollywood_gin/__init__.py (the version's one
   place: the wheel, `hollywood-gin --version`, `/healthz` and the image read it);
2. moves CHANGELOG.md's "## [Unreleased]" entries under "## [X.Y.Z] - <today, UTC>",
   leaving an empty Unreleased on top;
3. commits both ("release: X.Y.Z") and tags that commit, annotated: `vX.Y.Z`;
4. sets the next development version, X.Y.(Z+1).dev0, and commits it, so a build made
   after the release never claims to be the release.

Nothing is pushed: it prints the commands that publish the release. It refuses (exit 2)
a version that is not newer than the current one, a tag that exists, an empty
Unreleased section, and (exit 1) a working tree with changes.
Needs only Python and git.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INIT = ROOT / "hollywood_gin" / "__init__.py"
CHANGELOG = ROOT / "CHANGELOG.md"
VERSION_LINE = re.compile(r'^__version__ = "([^"]+)"$', re.M)
RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)")
UNRELEASED = "## [Unreleased]"


def git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def current_version() -> str:
    found = VERSION_LINE.search(INIT.read_text(encoding="utf-8"))
    if found is None:
        raise SystemExit(f"no __version__ line in {INIT}")
    return found.group(1)


def release_of(version: str) -> tuple[int, int, int]:
    """(X, Y, Z) of `X.Y.Z` or of a development version `X.Y.Z.devN`."""
    found = RELEASE.match(version)
    if found is None:
        raise SystemExit(f"not a version: {version}")
    x, y, z = (int(part) for part in found.groups())
    return x, y, z


def set_version(version: str) -> None:
    text = INIT.read_text(encoding="utf-8")
    INIT.write_text(VERSION_LINE.sub(f'__version__ = "{version}"', text, count=1), "utf-8")


def move_unreleased(version: str, day: str) -> None:
    text = CHANGELOG.read_text(encoding="utf-8")
    head, sep, rest = text.partition(UNRELEASED + "\n")
    if not sep:
        raise SystemExit(f"CHANGELOG.md has no '{UNRELEASED}' section")
    entries = rest.split("\n## [", 1)[0]
    if not entries.strip():
        print("CHANGELOG.md: nothing under Unreleased to release", file=sys.stderr)
        raise SystemExit(2)
    CHANGELOG.write_text(f"{head}{UNRELEASED}\n\n## [{version}] - {day}\n{rest}", "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="X.Y.Z, newer than the current version")
    args = parser.parse_args(argv)
    version: str = args.version
    if not RELEASE.fullmatch(version):
        print(f"{version}: a release is X.Y.Z (three numbers)", file=sys.stderr)
        return 2
    now = current_version()
    # X.Y.Z is newer than X.Y.Z.devN, and than every X'.Y'.Z' before it.
    if release_of(version) < release_of(now) or (version == now):
        print(f"{version} is not newer than the current {now}", file=sys.stderr)
        return 2
    if git("tag", "--list", f"v{version}"):
        print(f"the tag v{version} exists already", file=sys.stderr)
        return 2
    if git("status", "--porcelain", "--untracked-files=no"):
        print("the working tree has changes: commit or stash them first", file=sys.stderr)
        return 1
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    move_unreleased(version, day)
    set_version(version)
    git("commit", "--quiet", "-m", f"release: {version}", "--", str(INIT), str(CHANGELOG))
    git("tag", "-a", f"v{version}", "-m", f"Hollywood Gin {version}")
    x, y, z = release_of(version)
    following = f"{x}.{y}.{z + 1}.dev0"
    set_version(following)
    git(
        "commit",
        "--quiet",
        "-m",
        f"version: {following} after the release of {version}",
        "--",
        str(INIT),
    )
    print(f"released {version} (tag v{version}); the branch now says {following}")
    print(f"publish: git push origin HEAD v{version}")
    print(f"build:   git checkout v{version} && python -m pip wheel --no-deps -w dist .")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
