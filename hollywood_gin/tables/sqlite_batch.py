"""One group commit's transaction on the SQLite file (`GroupCommit` hands it a batch).

Every write of the batch goes into one transaction; a write that fails is undone
alone (a savepoint) and the others commit. Appends are data (`Append`), so a run
of them is one `executemany`; their gap check is made against each table's last
seq, kept here in memory (`BatchWriter`), without a query. Everything here runs
on the store's worker thread, the only one that runs SQL on its connection.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hollywood_gin.tables.group_commit import Outcomes
from hollywood_gin.tables.rows import gap_error

# Any other write: a function of the connection, run inside the batch's transaction.
Write = Callable[[sqlite3.Connection], object]


@dataclass(frozen=True, slots=True)
class Append:
    """An append as data, so a batch of them is one `executemany` (`BatchWriter.commit`)."""

    table_id: str
    first_seq: int
    rows: list[tuple[str, int, str]]
    now: float


Job = Write | Append


class BatchWriter:
    """Commits batches of writes, and knows every stored table's last seq.

    The last seqs (-1: no event yet) are read from the file at open (`load`) and
    kept by the worker thread alone: the gap check of an append, and the refusal of
    an append to a table that is not stored, need no query. The running
    transaction's changes to them are kept only if it commits.
    """

    def __init__(self) -> None:
        self._last_seq: dict[str, int] = {}
        # The running transaction's changes (None: the table is gone).
        self._txn_seqs: dict[str, int | None] = {}
        self.commits = 0
        self.writes = 0

    def load(self, db: sqlite3.Connection) -> None:
        """Every table's last seq, from the file (one scan of the events)."""
        self._last_seq = {table_id: -1 for (table_id,) in db.execute("SELECT id FROM tables")}
        # Integers only: a seq stored as text or a blob is damage, read_tables sets it aside.
        for table_id, last in db.execute(
            "SELECT table_id, MAX(seq) FROM events WHERE typeof(seq) = 'integer' GROUP BY table_id"
        ):
            if table_id in self._last_seq:
                self._last_seq[table_id] = int(last)

    def stored(self, table_id: str) -> bool:
        """Is the table in the file (as of the last commit)?"""
        return table_id in self._last_seq

    def created(self, table_id: str, last: int) -> None:
        """For a write of the running transaction: the table is stored, its log ends at `last`."""
        self._txn_seqs[table_id] = last

    def deleted(self, table_ids: Iterable[str]) -> None:
        """For a write of the running transaction: the tables are gone."""
        for table_id in table_ids:
            self._txn_seqs[table_id] = None

    def commit(self, db: sqlite3.Connection, writes: list[Job]) -> Outcomes:
        """One transaction for the batch; a failing write is undone alone (a savepoint).

        Consecutive appends go in as one `executemany` of events and one of
        `last_active`, their gap check done against the last seqs; only when SQLite
        refuses that are they retried one by one, each in its own savepoint.
        """
        failures: Outcomes = []
        self._txn_seqs = {}
        db.execute("BEGIN")
        try:
            run: list[Append] = []
            for write in writes:
                if isinstance(write, Append):
                    run.append(write)
                    continue
                if run:
                    failures.extend(self._appends(db, run))
                    run = []
                changed = dict(self._txn_seqs)
                db.execute("SAVEPOINT one")
                try:
                    write(db)
                except Exception as exc:
                    db.execute("ROLLBACK TO one")
                    self._txn_seqs = changed
                    failures.append(exc)
                else:
                    failures.append(None)
                db.execute("RELEASE one")
            if run:
                failures.extend(self._appends(db, run))
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            # What the file holds is known for sure only by reading it again. If even
            # that fails, the ends left (-1 or older) make appends fail, never corrupt.
            with contextlib.suppress(sqlite3.Error):
                self.load(db)
            raise
        for table_id, last in self._txn_seqs.items():
            if last is None:
                self._last_seq.pop(table_id, None)
            else:
                self._last_seq[table_id] = last
        self.commits += 1
        self.writes += len(writes)
        return failures

    def _stored_last(self, table_id: str, ends: dict[str, int | None]) -> int | None:
        """The table's last seq as of this point of the transaction; None: not stored."""
        if table_id in ends:
            return ends[table_id]
        return self._last_seq.get(table_id)

    def _refusal(self, a: Append, ends: dict[str, int | None]) -> Exception | None:
        last = self._stored_last(a.table_id, ends)
        if last is None:
            return RuntimeError(f"no stored table {a.table_id}")
        if last + 1 != a.first_seq:
            return gap_error(a.table_id, last, a.first_seq)
        return None

    def _appends(self, db: sqlite3.Connection, run: list[Append]) -> Outcomes:
        """Write a run of appends; a refused one fails alone, the others go through."""
        failures: Outcomes = []
        ends = dict(self._txn_seqs)
        rows: list[tuple[str, int, str]] = []
        touched: list[tuple[float, str]] = []
        for a in run:
            refusal = self._refusal(a, ends)
            failures.append(refusal)
            if refusal is None:
                rows.extend(a.rows)
                touched.append((a.now, a.table_id))
                ends[a.table_id] = a.first_seq + len(a.rows) - 1
        db.execute("SAVEPOINT run")
        try:
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", rows)
            db.executemany("UPDATE tables SET last_active = ? WHERE id = ?", touched)
        except sqlite3.Error:
            # SQLite refused one of them (a full disk, a trigger): find which, one
            # savepoint each, as if they had come one by one.
            db.execute("ROLLBACK TO run")
            db.execute("RELEASE run")
            return [self._one_append(db, a) for a in run]
        db.execute("RELEASE run")
        self._txn_seqs = ends
        return failures

    def _one_append(self, db: sqlite3.Connection, a: Append) -> Exception | None:
        refusal = self._refusal(a, self._txn_seqs)
        if refusal is not None:
            return refusal
        db.execute("SAVEPOINT one")
        try:
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", a.rows)
            db.execute("UPDATE tables SET last_active = ? WHERE id = ?", (a.now, a.table_id))
        except Exception as exc:
            db.execute("ROLLBACK TO one")
            db.execute("RELEASE one")
            return exc
        db.execute("RELEASE one")
        self._txn_seqs[a.table_id] = a.first_seq + len(a.rows) - 1
        return None
