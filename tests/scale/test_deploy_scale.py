"""The shipped scale-out files agree with each other and HAProxy accepts its config."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import yaml

from tests.conftest import REPO
from tests.scale.cluster import HAPROXY_CFG, haproxy_bin

COMPOSE = yaml.safe_load((REPO / "deploy" / "compose.scale-out.yml").read_text())
CONFIG = HAPROXY_CFG.read_text()


def test_haproxy_accepts_the_shipped_config() -> None:
    binary = haproxy_bin()
    if binary is None:
        if os.environ.get("CI"):
            raise RuntimeError("HAProxy is not installed (.ci/run installs it)")
        pytest.skip("HAProxy is not installed")
    env = dict(os.environ, GIN_BIND="127.0.0.1:1", GIN_W1="127.0.0.1:2", GIN_W2="127.0.0.1:3")
    env["GIN_W3"] = "127.0.0.1:4"
    done = subprocess.run(
        [binary, "-c", "-f", str(HAPROXY_CFG)], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tables_backend_never_splits_a_table() -> None:
    tables = CONFIG.split("\nbackend tables", 1)[1].split("\nbackend ", 1)[0]
    assert "balance hash var(txn.table)" in tables and "hash-type consistent" in tables
    code = "\n".join(line.split("#", 1)[0] for line in CONFIG.splitlines())
    assert "redispatch" not in code and "hash-balance-factor" not in code
    assert "/healthz" in tables and "on-marked-down shutdown-sessions" in tables
    assert "timeout tunnel 1h" in CONFIG


def test_compose_workers_proxy_and_config_agree() -> None:
    services = COMPOSE["services"]
    workers = sorted(name for name in services if re.fullmatch(r"w\d+", name))
    assert workers == ["w1", "w2", "w3"]
    proxy_env = services["haproxy"]["environment"]
    assert {k for k in proxy_env if k.startswith("GIN_W")} == {f"GIN_{w.upper()}" for w in workers}
    for w in workers:
        env = services[w]["environment"]
        assert env["HOLLYWOOD_GIN_DATABASE_URL"].startswith("postgresql://")
        assert services[w]["build"]["args"]["EXTRAS"] == "postgres"
        assert f'server {w} "${{GIN_{w.upper()}}}"' in CONFIG
        # The workers believe HAProxy's forwarded address, and only HAProxy's.
        assert (
            env["HOLLYWOOD_GIN_TRUSTED_PROXIES"]
            == (services["haproxy"]["networks"]["gin"]["ipv4_address"])
        )
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["haproxy"]["image"] == "haproxy:2.6"
