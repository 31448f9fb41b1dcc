"""The opt-in Prometheus endpoint: off by default; on, it counts what happened."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from hollywood_gin import __version__
from hollywood_gin.main import create_app
from tests.tables.helpers import exchange, make_settings, of_type
from tests.web.test_ws import new_table, seat_socket


def scrape(client: TestClient) -> tuple[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }
    return r.text, samples


def test_metrics_are_off_unless_asked_for(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        assert client.get("/metrics").status_code == 404


def test_metrics_count_tables_sockets_actions_errors_and_latencies(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, metrics=True))) as client:
        table_id, token0, token1 = new_table(client)
        with seat_socket(client, table_id, token1) as (ws, _state):
            frames = exchange(ws, {"type": "action", "version": 1, "action": {"kind": "pass"}})
            assert of_type(frames, "error") == []
            frames = exchange(ws, {"type": "action", "version": 2, "action": {"kind": "pass"}})
            assert [e["code"] for e in of_type(frames, "error")] == ["not_your_turn"]
            text, samples = scrape(client)
            assert samples[("hollywood_gin_tables", ())] == 1
            assert samples[("hollywood_gin_sockets", ())] == 1
        assert samples[("hollywood_gin_actions_total", (("kind", "pass"),))] == 1
        assert samples[("hollywood_gin_errors_total", (("code", "not_your_turn"),))] == 1
        assert samples[("hollywood_gin_action_seconds_count", ())] == 1
        assert samples[("hollywood_gin_commit_seconds_count", ())] >= 1
        for secret in (table_id, token0, token1):
            assert secret not in text
        _, after = scrape(client)
        assert after[("hollywood_gin_sockets", ())] == 0


def test_the_computers_thinking_is_timed(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, metrics=True))) as client:
        # Seat 0 deals: the computer, at seat 1, has the first move.
        body = {"name": "Ann", "computer": "easy", "test_first_dealer": 0}
        r = client.post("/api/tables", json=body)
        assert r.status_code == 201
        deadline = time.monotonic() + 30
        while True:
            _, samples = scrape(client)
            key = ("hollywood_gin_computer_think_seconds_count", (("strength", "easy"),))
            if samples.get(key, 0) >= 1:
                break
            assert time.monotonic() < deadline, "the computer never thought"
            time.sleep(0.1)


def test_the_process_platform_gc_and_build_series_are_there(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, metrics=True, commit="abc1234")
    with TestClient(create_app(settings)) as client:
        _, samples = scrape(client)
    names = {name for name, _ in samples}
    # prometheus-client's collectors: the process, the interpreter, the collector's passes.
    assert {"process_resident_memory_bytes", "process_cpu_seconds_total"} <= names
    assert {"python_info", "python_gc_collections_total"} <= names
    build = (("commit", "abc1234"), ("version", __version__))
    assert samples[("hollywood_gin_build_info", build)] == 1
