"""The fenced append sends its arrays as PostgreSQL array literals it writes itself
(`postgres_appends.text_array`, `number_array`): whatever text or number goes in must
come back from the server exactly, or an entry of a table's log would be changed."""

from __future__ import annotations

import asyncio

import asyncpg
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.tables.postgres_appends import number_array, text_array
from tests.tables.stores import pg_url, postgres

__all__ = ["pg_url", "postgres"]  # fixtures

# Any character PostgreSQL's text can hold: not NUL, and no lone surrogate (UTF-8
# cannot encode one, and the server's JSON parsers refuse them, so none reaches a
# log); quotes, backslashes, braces, commas and spaces are the ones the literal's
# syntax gives a meaning to.
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from("\"\\{},; \t\n'NULL"),
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    )
)


def test_array_literals_read_back_exactly(pg_url: str) -> None:
    with asyncio.Runner() as runner:
        con = runner.run(asyncpg.connect(pg_url))
        try:

            @settings(max_examples=300, deadline=None)
            @given(
                texts=st.lists(TEXT, max_size=8),
                ints=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=8),
                floats=st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=8),
            )
            def check(texts: list[str], ints: list[int], floats: list[float]) -> None:
                row = runner.run(
                    con.fetchrow(
                        "SELECT $1::text::text[] AS t, $2::text::bigint[] AS i,"
                        " $3::text::double precision[] AS f",
                        text_array(texts),
                        number_array(ints),
                        number_array(floats),
                    )
                )
                assert row is not None
                assert (row["t"], row["i"], row["f"]) == (texts, ints, floats)

            check()
        finally:
            runner.run(con.close())
