"""The shipped scale-out files agree with each other and HAProxy accepts its config."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
import pytest
import yaml

from tests.conftest import REPO, free_port, running_server
from tests.postgres import Cluster, postgres  # noqa: F401 (the fixture)
from tests.scale.cluster import HAPROXY_CFG, haproxy_bin

COMPOSE = yaml.safe_load((REPO / "deploy" / "compose.scale-out.yml").read_text())
CONFIG = HAPROXY_CFG.read_text()
(NET,) = COMPOSE["networks"]["gin"]["ipam"]["config"]
subnet = ipaddress.ip_network(NET["subnet"])


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
        # The workers believe the network's forwarded addresses: HAProxy's and the
        # gateway's (a TLS proxy on the host comes through Docker's port forwarding).
        trusted = ipaddress.ip_network(env["HOLLYWOOD_GIN_TRUSTED_PROXIES"])
        assert trusted == subnet
        assert "${GIN_DB_PASSWORD" in env["HOLLYWOOD_GIN_DATABASE_URL"]
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["haproxy"]["image"] == "haproxy:2.6"


def test_compose_addresses_are_fixed_and_haproxy_trusts_only_the_gateway() -> None:
    services = COMPOSE["services"]
    haproxy = ipaddress.ip_address(services["haproxy"]["networks"]["gin"]["ipv4_address"])
    gateway = ipaddress.ip_address(NET["gateway"])
    dynamic = ipaddress.ip_network(NET["ip_range"])
    assert haproxy in subnet and gateway in subnet and dynamic.subnet_of(subnet)  # type: ignore[arg-type]
    # Docker never hands HAProxy's address to another container.
    assert haproxy not in dynamic and gateway not in dynamic
    assert services["haproxy"]["environment"]["GIN_TRUSTED_PROXIES"] == str(gateway)
    # Root only to chroot and drop to `haproxy` (the config's user/group/chroot).
    assert services["haproxy"]["user"] == "root"
    assert re.search(r"(?m)^    user haproxy$", CONFIG) and "chroot /var/lib/haproxy" in CONFIG


def test_the_database_role_of_the_workers_is_not_the_superuser() -> None:
    pg = COMPOSE["services"]["postgres"]
    assert pg["environment"]["POSTGRES_USER"] != "gin"
    assert pg["environment"]["GIN_DB_USER"] == "gin"
    assert any("postgres-init.sh" in v for v in pg["volumes"])


def test_haproxy_starts_with_a_1024_file_limit_as_another_user() -> None:
    """No `maxconn`: HAProxy takes it from its open-file limit instead of refusing to
    start (the old `maxconn 50000` needed 100,020 files)."""
    binary = haproxy_bin()
    if binary is None:
        pytest.skip("HAProxy is not installed")
    if os.geteuid() != 0:
        pytest.skip("needs root to start HAProxy as another user")
    folder = Path(tempfile.mkdtemp(prefix="gin-haproxy-"))  # readable by `haproxy`
    folder.chmod(0o755)
    cfg = folder / "haproxy.cfg"
    cfg.write_text(re.sub(r"(?m)^    (user|group|chroot) .*\n", "", CONFIG))
    cfg.chmod(0o644)
    port = free_port()
    env = dict(os.environ, GIN_BIND=f"127.0.0.1:{port}", GIN_W1="127.0.0.1:1")
    env.update(GIN_W2="127.0.0.1:2", GIN_W3="127.0.0.1:3")

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    proc = subprocess.Popen(
        ["runuser", "-u", "haproxy", "--", binary, "-db", "-f", str(cfg)],
        env=env,
        # A folder the haproxy user may enter: it returns to its starting folder after
        # reading the configuration, and a checkout may be private (mktemp -d is 0700).
        cwd="/",
        preexec_fn=low_limit,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        answer = None
        for _ in range(100):
            if proc.poll() is not None:
                break
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        assert answer == 503  # running; no worker behind it
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_single_compose_file_trusts_its_fixed_network() -> None:
    single = yaml.safe_load((REPO / "deploy" / "docker-compose.yml").read_text())
    (net,) = single["networks"]["gin"]["ipam"]["config"]
    env = single["services"]["hollywood-gin"]["environment"]
    # The whole fixed subnet: the gateway (a proxy on the host) and Caddy's container.
    default = f"${{HOLLYWOOD_GIN_TRUSTED_PROXIES:-{net['subnet']}}}"
    assert env["HOLLYWOOD_GIN_TRUSTED_PROXIES"] == default
    assert ipaddress.ip_address(net["gateway"]) in ipaddress.ip_network(net["subnet"])
    assert single["services"]["caddy"]["networks"] == ["gin"]


@pytest.mark.anyio
async def test_the_init_script_makes_a_least_privilege_role_the_workers_can_run_on(
    postgres: Cluster,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    """deploy/postgres-init.sh, run as the postgres image runs it, in a throwaway
    cluster: the role owns its database, is no superuser, and a worker runs on it."""
    env = dict(os.environ, PATH=f"{postgres.bindir}:{os.environ['PATH']}")
    env.update(
        PGHOST="127.0.0.1",
        PGPORT=str(postgres.port),
        POSTGRES_USER="gin",  # the throwaway cluster's superuser
        GIN_DB_USER="gin_app",
        GIN_DB_NAME="gin_app",
        GIN_DB_PASSWORD="not-a-secret",
    )
    done = subprocess.run(
        ["sh", str(REPO / "deploy" / "postgres-init.sh")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    url = f"postgresql://gin_app:not-a-secret@127.0.0.1:{postgres.port}/gin_app"
    data = tmp_path / "unused.sqlite3"
    with running_server(data, env={"HOLLYWOOD_GIN_DATABASE_URL": url}) as (base, _proc):
        made = httpx.post(base + "/api/tables", json={"name": "Ann"}, timeout=10)
        assert made.status_code == 201
        table_id = made.json()["table_id"]
        assert httpx.get(f"{base}/api/tables/{table_id}", timeout=10).status_code == 200

    import asyncpg

    con = await asyncpg.connect(url)
    try:
        row = await con.fetchrow(
            "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls"
            " FROM pg_roles WHERE rolname = current_user"
        )
    finally:
        await con.close()
    assert not any(dict(row).values())
