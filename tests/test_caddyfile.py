"""deploy/Caddyfile is valid for the Caddy a host installs: Debian 12's package (2.6,
what `apt install caddy` gives and the README sends hosts to) and the compose file's
image (a later 2.x, which reads everything 2.6 does). `caddy validate` adapts the file
and provisions every module, without listening or asking for a certificate.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

CADDYFILE = REPO / "deploy" / "Caddyfile"
COMPOSE = yaml.safe_load((REPO / "deploy" / "docker-compose.yml").read_text())


def caddy() -> str:
    found = shutil.which("caddy")
    if found is None:
        if os.environ.get("CI"):
            raise RuntimeError("Caddy is not installed (.ci/run installs Debian's caddy)")
        pytest.skip("Caddy is not installed (apt-get install caddy)")
    return found


def validate(placeholders: dict[str, str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **placeholders,
        # Caddy's storage and autosave go here, not into the user's home.
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    return subprocess.run(
        [caddy(), "validate", "--adapter", "caddyfile", "--config", str(CADDYFILE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_caddyfile_names_only_the_placeholders_set_for_it() -> None:
    named = set(re.findall(r"\{\$(\w+)\}", CADDYFILE.read_text()))
    assert named == set(COMPOSE["services"]["caddy"]["environment"]) == {"DOMAIN", "GIN_UPSTREAM"}


@pytest.mark.parametrize(
    "where",
    [
        # The README's bare-metal set-up: Debian's caddy in front of 127.0.0.1:8000.
        {"DOMAIN": "gin.example.org", "GIN_UPSTREAM": "127.0.0.1:8000"},
        # The compose file's "caddy" profile, with its defaults.
        {
            name: re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", str(value))
            for name, value in COMPOSE["services"]["caddy"]["environment"].items()
        },
    ],
    ids=["bare-metal", "compose"],
)
def test_caddy_validates_the_caddyfile(where: dict[str, str], tmp_path: Path) -> None:
    done = validate(where, tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Valid configuration" in done.stdout + done.stderr
