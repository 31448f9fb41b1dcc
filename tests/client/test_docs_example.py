"""The 20-line bot of docs/bots.md, run as it is through `hollywood-gin bot` against
the computer on a real server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
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


def console_script(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed `hollywood-gin` command (the editable install's console script,
    whose `sys.path[0]` is its `bin/`), run in `folder` as docs/bots.md says. Its
    package is this tree's: PYTHONPATH names the tree, never the folder."""
    script = shutil.which("hollywood-gin")
    assert script is not None, "no hollywood-gin on PATH (pip install -e .)"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [script, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_docs_bot_plays_a_match_through_the_command(tmp_path: Path) -> None:
    """`hollywood-gin bot … --bot greedy:Greedy` from the folder of greedy.py, in a
    process of its own: it imports the bot from there and prints the match's result."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "greedy.py").write_text(example())
    env = {"HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}
    with running_server(tmp_path / "tables.sqlite3", env=env) as (base, _proc):
        made = httpx.post(
            base + "/api/tables",
            json={"scoring": "game", "computer": "easy", "bot": True, "name": "Greedy"},
            timeout=10,
        ).json()
        link = f"{base}/t/{made['table_id']}/seat/{made['token']}"
        done = console_script(folder, "bot", link, "--bot", "greedy:Greedy", "--matches", "1")
        assert done.returncode == 0, done.stdout + done.stderr
        facts = httpx.get(f"{base}/api/tables/{made['table_id']}", timeout=10).json()
    assert facts["status"] == "match_over"
    assert facts["players"][0]["bot"] is True
    # The result, as the sheet has it, before the count.
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("match 1: ")]
    assert re.fullmatch(r"match 1: (won|lost), \d+ to \d+", line), done.stdout
    assert done.stdout.index(line) < done.stdout.index("played 1 match")


def test_the_arena_takes_a_bot_from_the_folder_it_runs_in(tmp_path: Path) -> None:
    (tmp_path / "greedy.py").write_text(example())
    done = console_script(
        tmp_path, "arena", "greedy:Greedy", "easy", "--deals", "2", "--seed", "0", "--jobs", "2"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("greedy:Greedy vs easy: 2 duplicate deals"), done.stdout


def test_a_bot_the_folder_lacks_is_one_line(tmp_path: Path) -> None:
    done = console_script(tmp_path, "arena", "greedy:Greedy", "easy", "--deals", "1")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "cannot load bot 'greedy:Greedy'" in done.stderr


def test_the_command_reports_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with running_server(tmp_path / "tables.sqlite3") as (base, _proc):
        made = httpx.post(base + "/api/tables", json={"bots": False}, timeout=10).json()
        assert main(["bot", f"{base}/t/{made['table_id']}", "--bot", "random"]) == 1
    assert "does not take bots" in capsys.readouterr().err
    assert main(["bot", "http://127.0.0.1:9/t/x", "--bot", "no.such:thing"]) == 1
