"""The table page's pure parts (tests/js/*.test.mjs) under Node's own test runner:
no framework, no packages, no build step. The browser tests (tests/e2e) test the whole."""

from __future__ import annotations

import shutil
import subprocess

from tests.conftest import REPO


def test_js_units() -> None:
    node = shutil.which("node")
    assert node, "Node.js (20 or later) runs tests/js: apt-get install nodejs"
    run = subprocess.run(
        [node, "--test", "tests/js/"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
