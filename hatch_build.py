"""A build hook: the version and the commit a wheel was built from, inside the wheel.

The version is `__version__` of `hollywood_gin/__init__.py` (pyproject.toml); this
writes it together with the short commit into `hollywood_gin/_build.py`, which
`hollywood_gin.__init__` reads, so an installed wheel knows its commit without a
checkout (`/healthz`, `--version`, the footer). The commit is `git rev-parse --short
HEAD` of the tree being built, or `HOLLYWOOD_GIN_COMMIT` where there is no git (a
Docker build passes it as an argument).
An editable install writes nothing: a checkout reads its commit from git at start-up.
A wheel built from an sdist (no git) keeps the sdist's own `_build.py`.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

TARGET = "hollywood_gin/_build.py"


def git_commit(root: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


class BuildInfo(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        commit = git_commit(self.root) or os.environ.get("HOLLYWOOD_GIN_COMMIT") or None
        shipped = Path(self.root, TARGET)
        if commit is None and shipped.exists():
            # An sdist's own record (git-ignored, so named here to be included).
            build_data["force_include"][str(shipped)] = TARGET
            return
        text = (
            "# Written by hatch_build.py when the wheel or sdist was built; not in git.\n"
            f"version = {self.metadata.version!r}\n"
            f"commit = {commit!r}\n"
        )
        folder = Path(tempfile.mkdtemp(prefix="hollywood-gin-build-"))
        (folder / "_build.py").write_text(text, encoding="utf-8")
        build_data["force_include"][str(folder / "_build.py")] = TARGET
