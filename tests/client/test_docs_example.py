"""The 20-line bot of docs/bots.md, run as it is through `hollywood-gin bot` against
the computer on a real server."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from hollywood_gin.cli import main
from tests.conftest import REPO, running_server


def example() -> str:
    text = (REPO / "docs" / "bots.md").read_text()
    block = text.split("### A complete bot in 20 lines")[1].split("```python\n")[1]
    return block.split("```")[0]


def test_the_example_is_20_lines() -> None:
    assert len([line for line in example().splitlines() if line.strip()]) == 20


def test_the_docs_bot_plays_a_match_through_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "greedy.py").write_text(example())
    monkeypatch.syspath_prepend(str(tmp_path))
    env = {"HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}
    with running_server(tmp_path / "tables.sqlite3", env=env) as (base, _proc):
        made = httpx.post(
            base + "/api/tables",
            json={"scoring": "game", "computer": "easy", "bot": True, "name": "Greedy"},
            timeout=10,
        ).json()
        link = f"{base}/t/{made['table_id']}/seat/{made['token']}"
        assert main(["bot", link, "--bot", "greedy:Greedy", "--matches", "1"]) == 0
        assert "played 1 match" in capsys.readouterr().out
        facts = httpx.get(f"{base}/api/tables/{made['table_id']}", timeout=10).json()
    assert facts["status"] == "match_over"
    assert facts["players"][0]["bot"] is True
    sys.modules.pop("greedy", None)


def test_the_command_reports_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with running_server(tmp_path / "tables.sqlite3") as (base, _proc):
        made = httpx.post(base + "/api/tables", json={"bots": False}, timeout=10).json()
        assert main(["bot", f"{base}/t/{made['table_id']}", "--bot", "random"]) == 1
    assert "does not take bots" in capsys.readouterr().err
    assert main(["bot", "http://127.0.0.1:9/t/x", "--bot", "no.such:thing"]) == 1
