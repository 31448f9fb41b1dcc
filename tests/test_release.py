"""A release is one command (`python scripts/release.py X.Y.Z`), and any checkout says
its version: the one place (`__version__`) is what `hollywood-gin --version` prints, at
the release's tag and after it. Run on a copy of the tree in a git repository of its
own, so the test never tags this one."""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hollywood_gin
from tests.conftest import REPO, run_gin

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(where: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", *args], cwd=where, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "_build.py")
    shutil.copytree(REPO / "hollywood_gin", root / "hollywood_gin", ignore=ignore)
    shutil.copytree(REPO / "scripts", root / "scripts", ignore=ignore)
    log = (REPO / "CHANGELOG.md").read_text()
    # Right after a release the real Unreleased is empty: give the copy an entry.
    log = log.replace("## [Unreleased]\n", "## [Unreleased]\n\n- An entry of the test's.\n", 1)
    (root / "CHANGELOG.md").write_text(log)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def release(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        [sys.executable, "scripts/release.py", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def says(root: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLLYWOOD_GIN_")}
    env["PYTHONPATH"] = str(root)
    return run_gin("--version", cwd=root, env=env, check=True).stdout.strip()


def test_the_version_is_set_in_one_place_and_the_changelog_keeps_its_form() -> None:
    text = (REPO / "hollywood_gin" / "__init__.py").read_text()
    assert re.findall(r'^__version__ = "([^"]+)"$', text, re.M) == [hollywood_gin.__version__]
    log = (REPO / "CHANGELOG.md").read_text()
    assert "[Keep a Changelog](https://keepachangelog.com/en/1.1.0/)" in log
    assert "## [Unreleased]" in log
    for _version, day in re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\S+)$", log, re.M):
        datetime.date.fromisoformat(day)


def test_one_command_cuts_a_release_and_tags_it(checkout: Path) -> None:
    before = hollywood_gin.__version__
    x, y = (int(n) for n in before.split(".")[:2])
    version = f"{x}.{y + 1}.0"
    log = (checkout / "CHANGELOG.md").read_text()
    unreleased = log.split("## [Unreleased]\n", 1)[1].split("\n## [", 1)[0]
    assert "An entry of the test's." in unreleased

    done = release(checkout, version)
    assert done.returncode == 0, done.stderr
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    git(checkout, "checkout", "-q", f"v{version}")
    assert git(checkout, "cat-file", "-t", f"v{version}") == "tag"  # annotated
    assert says(checkout).startswith(f"hollywood-gin {version} (commit ")
    released = (checkout / "CHANGELOG.md").read_text()
    assert f"## [Unreleased]\n\n## [{version}] - {today}\n{unreleased}" in released
    git(checkout, "checkout", "-q", "main")
    assert says(checkout).startswith(f"hollywood-gin {x}.{y + 1}.1.dev0 (commit ")
    assert git(checkout, "status", "--porcelain") == ""

    # Once released: the same version again, an older one, or nothing new, refused.
    assert release(checkout, version).returncode == 2
    assert release(checkout, before.split(".dev")[0]).returncode == 2
    assert release(checkout, f"{x}.{y + 1}.1").returncode == 2  # Unreleased is empty
    assert release(checkout, "2.0").returncode == 2


def test_a_release_refuses_a_tree_with_changes(checkout: Path) -> None:
    (checkout / "CHANGELOG.md").write_text(
        (checkout / "CHANGELOG.md").read_text() + "\nnot committed\n"
    )
    done = release(checkout, "99.0.0")
    assert done.returncode == 1 and "changes" in done.stderr
    assert git(checkout, "tag", "--list") == ""
