"""`hollywood-gin verify FILE`: a downloaded hand record checked from the derivation."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from hollywood_gin.cli import main
from hollywood_gin.engine import Match, Options
from hollywood_gin.engine.dealer import Dealer, secret_commitment
from tests.engine.test_fair_deal import finish_hand

E0 = "0123456789abcdef0123456789abcdef"


def hand_record(*, fair: bool = True) -> tuple[dict[str, Any], str | None]:
    dealer = Dealer(random.Random(4), first_dealer=0, fair=fair)
    match = Match(Options(), dealer=dealer)
    commitment = match.next_deal
    match.contribute(0, E0)
    match.start()
    finish_hand(match)
    record = match.hand_record(1)
    assert record is not None
    return json.loads(json.dumps(record)), commitment


def write(tmp_path: Path, record: dict[str, Any]) -> Path:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record))
    return path


def test_a_true_record_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record, commitment = hand_record()
    assert commitment == secret_commitment(bytes.fromhex(record["server_secret"]))
    path = write(tmp_path, record)
    assert main(["verify", str(path), "--commitment", commitment, "--entropy", E0]) == 0
    out = capsys.readouterr().out
    assert "deck derived from the secrets: ok" in out and commitment in out
    assert "your entropy used: ok" in out


def test_a_changed_record_does_not(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record, _ = hand_record()
    swapped = dict(record, deck=[record["deck"][1], record["deck"][0], *record["deck"][2:]])
    assert main(["verify", str(write(tmp_path, swapped))]) == 1
    assert "DIFFERENT" in capsys.readouterr().out
    assert main(["verify", str(write(tmp_path, record)), "--commitment", "00" * 32]) == 1
    assert main(["verify", str(write(tmp_path, record)), "--entropy", "11" * 16]) == 1
    other = dict(record, entropy=[None, None])  # the server left the player's part out
    assert main(["verify", str(write(tmp_path, other))]) == 1


def test_no_secret_or_no_record_is_2(tmp_path: Path) -> None:
    record, _ = hand_record(fair=False)
    assert record["server_secret"] is None
    assert main(["verify", str(write(tmp_path, record))]) == 2
    (tmp_path / "junk.json").write_text("not json")
    assert main(["verify", str(tmp_path / "junk.json")]) == 2
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
