"""The rows both stores write and read: one encoding, read back as it was written."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hollywood_gin.tables.rows import (
    entry_rows,
    hand_from,
    hand_rows,
    read_log,
    record_from,
    table_row,
)
from hollywood_gin.tables.store import Damaged, SeatRecord, TableRecord

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
text = st.text(max_size=12)
seats = st.builds(
    SeatRecord,
    name=text,
    token_hash=text,
    computer=st.none() | text,
    lang=st.none() | text,
    order=st.none() | objects,
)
times = st.floats(0, 4e9, allow_nan=False)
records = st.builds(
    TableRecord,
    # An id is some text without a NUL (an empty one, or a NUL, is damage: below).
    table_id=st.text(min_size=1, max_size=12).filter(lambda s: "\x00" not in s),
    options=objects,
    seats=st.lists(seats, max_size=2),
    created=times,
    last_active=times,
    base=st.integers(0, 10_000),
)


@given(record=records, log=st.lists(objects, max_size=5))
def test_a_table_row_and_its_events_read_back_as_written(
    record: TableRecord, log: list[dict[str, Any]]
) -> None:
    # A compacted table keeps its entry at base_seq: an empty log above 0 is damage.
    assume(log or record.base == 0)
    back = record_from(table_row(record))
    read_log(back, [(seq, entry) for _, seq, entry in entry_rows("t", record.base, log)])
    record.log = log
    assert back == record


def test_an_empty_log_above_seq_0_an_empty_id_and_a_text_seq_are_damage() -> None:
    with pytest.raises(Damaged, match="beyond the log"):
        read_log(TableRecord("t", {}, [], 1.0, 1.0, base=3), [])
    with pytest.raises(Damaged, match="not a table id"):
        record_from(table_row(TableRecord("", {}, [], 1.0, 1.0)))
    with pytest.raises(Damaged, match="not an integer"):
        read_log(TableRecord("t", {}, [], 1.0, 1.0), [("0", '{"event": "a"}')])  # type: ignore[list-item]


@given(hands=st.dictionaries(st.integers(1, 99), objects, max_size=4))
def test_hand_records_read_back_as_written(hands: dict[int, dict[str, Any]]) -> None:
    rows = hand_rows("t", hands)
    assert {number: hand_from(raw, number) for _, number, raw in rows} == hands


def test_a_gap_in_the_seqs_is_damage() -> None:
    record = TableRecord("t", {}, [], 1.0, 1.0, base=3)
    rows = entry_rows("t", 3, [{"event": "a"}, {"event": "b"}])
    with pytest.raises(Damaged, match="seq 4 where 3 belongs"):
        read_log(record, [(seq, entry) for _, seq, entry in rows[1:]])
