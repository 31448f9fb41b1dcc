"""One group commit's transaction on the SQLite file (`GroupCommit` hands it a batch).

Every write of the batch goes into one transaction; a write that fails is undone
alone (a savepoint) and the others commit. Appends are data (`Append`), so a run
of them is one multi-row `INSERT`; their gap check is made against each table's
last seq, kept here in memory (`BatchWriter`), without a query. A batch of appends
alone (the usual one) is that one statement and its own transaction: no `BEGIN`,
savepoint or `COMMIT` around it. Everything here runs on the store's worker thread,
the only one that runs SQL on its connection.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import orjson

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.group_commit import Outcomes
from hollywood_gin.tables.rows import gap_error

# Any other write: a function of the connection, run inside the batch's transaction.
Write = Callable[[sqlite3.Connection], object]

# Rows of `events` per INSERT statement: one statement per batch up to this many
# entries. Each row count is a statement of its own in the connection's cache.
CHUNK = 64
STATEMENTS_CACHED = 256  # the connection's `cached_statements`: CHUNK of them and the rest
_COLUMNS = 4  # table_id, seq, entry, at


def _insert(rows: int) -> str:
    return "INSERT INTO events (table_id, seq, entry, at) VALUES " + ", ".join(
        ["(?, ?, ?, ?)"] * rows
    )


_INSERTS = [""] + [_insert(n) for n in range(1, CHUNK + 1)]


def append_values(
    table_id: str, first_seq: int, entries: Sequence[JsonObject], now: float
) -> list[object]:
    """The `events` rows (table_id, seq, entry, at) of an append, one after another."""
    values: list[object] = []
    for seq, entry in enumerate(entries, start=first_seq):
        values += (table_id, seq, orjson.dumps(entry).decode(), now)
    return values


def insert_rows(db: sqlite3.Connection, values: list[object]) -> None:
    """`events` rows, given as `append_values` gives them; one statement a CHUNK."""
    step = CHUNK * _COLUMNS
    for start in range(0, len(values), step):
        part = values[start : start + step]
        db.execute(_INSERTS[len(part) // _COLUMNS], part)


@dataclass(slots=True)  # not frozen: a frozen one's __init__ costs 4x (one per move)
class Append:
    """An append as data, so a batch of them is one `INSERT` (`BatchWriter.commit`)."""

    table_id: str
    first_seq: int
    count: int  # entries
    values: list[object]  # append_values'
    now: float


Job = Write | Append


class BatchWriter:
    """Commits batches of writes, and knows every stored table's last seq and append time.

    The last seqs (-1: no event yet) and the latest `events.at` of each table are
    read from the file at open (`load`) and kept by the worker thread alone: the gap
    check of an append, the refusal of an append to a table that is not stored, and
    whether a table was active since a time (`active_since`, for expiry) need no
    query. The running transaction's changes to them are kept only if it commits.
    """

    def __init__(self) -> None:
        self._last_seq: dict[str, int] = {}
        self._last_at: dict[str, float] = {}
        # The running transaction's changes (None: the table is gone, or made anew).
        self._txn_seqs: dict[str, int | None] = {}
        self._txn_ats: dict[str, float | None] = {}
        self.commits = 0
        self.writes = 0

    def load(self, db: sqlite3.Connection) -> None:
        """Every table's last seq and append time, from the file (one pass over the
        events). One row per table, so both maps share its id's string: kept for every
        stored table, in memory or not, it is most of what a table out of memory costs."""
        self._last_seq = {}
        self._last_at = {}
        # Integers only: a seq stored as text or a blob is damage, read_tables sets it aside.
        for table_id, last, at in db.execute(
            "SELECT t.id, MAX(CASE WHEN typeof(e.seq) = 'integer' THEN e.seq END),"
            " MAX(CASE WHEN typeof(e.seq) = 'integer' AND typeof(e.at) IN ('real', 'integer')"
            " THEN e.at END)"
            " FROM tables t LEFT JOIN events e ON e.table_id = t.id GROUP BY t.id"
        ):
            self._last_seq[table_id] = -1 if last is None else int(last)
            if at is not None:
                self._last_at[table_id] = float(at)

    def stored(self, table_id: str) -> bool:
        """Is the table in the file (as of the last commit)?"""
        return table_id in self._last_seq

    def last_append(self, table_id: str) -> float | None:
        """The latest `events.at` of the table, this transaction's appends included."""
        if table_id in self._txn_ats:
            return self._txn_ats[table_id]
        return self._last_at.get(table_id)

    def active_since(self, table_id: str, before: float) -> bool:
        """Has the table an append at `before` or later (this transaction's included)?"""
        at = self.last_append(table_id)
        return at is not None and at >= before

    def created(self, table_id: str, last: int) -> None:
        """For a write of the running transaction: the table is stored, its log ends at `last`."""
        self._txn_seqs[table_id] = last
        self._txn_ats[table_id] = None

    def deleted(self, table_ids: Iterable[str]) -> None:
        """For a write of the running transaction: the tables are gone."""
        for table_id in table_ids:
            self._txn_seqs[table_id] = None
            self._txn_ats[table_id] = None

    def commit(self, db: sqlite3.Connection, writes: list[Job]) -> Outcomes:
        """One transaction for the batch; a failing write is undone alone (a savepoint).

        Consecutive appends go in as one `INSERT` of events (CHUNK rows a statement),
        their gap check done against the last seqs; only when SQLite refuses that are
        they retried one by one, each in its own savepoint. A batch of appends alone
        that fits one statement is that statement, its own transaction.
        """
        if len(writes) == 1 and self._lone_append(db, writes[0]):
            return [None]
        self._txn_seqs = {}
        self._txn_ats = {}
        try:
            alone = self._one_statement(writes)
            if alone is not None:
                failures = self._appends(db, alone, in_transaction=False)
            else:
                failures = self._transaction(db, writes)
        except BaseException:
            self._txn_seqs, self._txn_ats = {}, {}
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            # What the file holds is known for sure only by reading it again. If even
            # that fails, the ends left (-1 or older) make appends fail, never corrupt.
            with contextlib.suppress(sqlite3.Error):
                self.load(db)
            raise
        self._keep()
        self._txn_seqs, self._txn_ats = {}, {}
        self.commits += 1
        self.writes += len(writes)
        return failures

    def _lone_append(self, db: sqlite3.Connection, write: Job) -> bool:
        """A batch of one append that follows its table's log, written as one statement
        (its own transaction) without the batch's bookkeeping: a commit of one append is
        what a server at a moderate pace makes
        (docs/research/performance-log.md "The stack per frame, cut"). False: nothing was
        written, the batch goes the general way (a refusal, or SQLite's error: one statement
        that fails changes nothing)."""
        if type(write) is not Append or write.count > CHUNK:
            return False
        last = self._last_seq.get(write.table_id)
        if last is None or last + 1 != write.first_seq:
            return False
        try:
            db.execute(_INSERTS[write.count], write.values)
        except Exception:  # the general way tries it again and answers as it does
            return False
        table_id = write.table_id
        self._last_seq[table_id] = write.first_seq + write.count - 1
        at = self._last_at.get(table_id)
        self._last_at[table_id] = write.now if at is None or write.now > at else at
        self.commits += 1
        self.writes += 1
        return True

    @staticmethod
    def _one_statement(writes: list[Job]) -> list[Append] | None:
        """The batch, when it is appends alone that fit one statement."""
        rows = 0
        appends: list[Append] = []
        for write in writes:
            if not isinstance(write, Append):
                return None
            rows += write.count
            appends.append(write)
        return appends if rows <= CHUNK else None

    def _transaction(self, db: sqlite3.Connection, writes: list[Job]) -> Outcomes:
        failures: Outcomes = []
        db.execute("BEGIN")
        run: list[Append] = []
        for write in writes:
            if isinstance(write, Append):
                run.append(write)
                continue
            if run:
                failures.extend(self._appends(db, run, in_transaction=True))
                run = []
            changed = dict(self._txn_seqs), dict(self._txn_ats)
            db.execute("SAVEPOINT one")
            try:
                write(db)
            except Exception as exc:
                db.execute("ROLLBACK TO one")
                self._txn_seqs, self._txn_ats = changed
                failures.append(exc)
            else:
                failures.append(None)
            db.execute("RELEASE one")
        if run:
            failures.extend(self._appends(db, run, in_transaction=True))
        db.execute("COMMIT")
        return failures

    def _keep(self) -> None:
        """The committed transaction's ends into the ones kept."""
        for table_id, last in self._txn_seqs.items():
            if last is None:
                self._last_seq.pop(table_id, None)
            else:
                self._last_seq[table_id] = last
        for table_id, at in self._txn_ats.items():
            if at is None:
                self._last_at.pop(table_id, None)
            else:
                self._last_at[table_id] = at

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

    def _appended(self, a: Append) -> None:
        """For the running transaction: `a` is written."""
        self._txn_seqs[a.table_id] = a.first_seq + a.count - 1
        at = self.last_append(a.table_id)
        self._txn_ats[a.table_id] = a.now if at is None else max(at, a.now)

    def _appends(
        self, db: sqlite3.Connection, run: list[Append], *, in_transaction: bool
    ) -> Outcomes:
        """Write a run of appends; a refused one fails alone, the others go through.

        `in_transaction`: inside the batch's transaction (else the statement is its own).
        """
        failures: Outcomes = []
        ends = dict(self._txn_seqs)
        values: list[object] = []
        written: list[Append] = []
        for a in run:
            refusal = self._refusal(a, ends)
            failures.append(refusal)
            if refusal is None:
                values += a.values
                written.append(a)
                ends[a.table_id] = a.first_seq + a.count - 1
        if not written:
            return failures
        several = len(values) > CHUNK * _COLUMNS  # more than one statement: a savepoint
        if several:
            db.execute("SAVEPOINT run")
        try:
            insert_rows(db, values)
        except sqlite3.Error:
            # SQLite refused one of them (a full disk, a trigger): find which, one
            # savepoint each, as if they had come one by one. One statement that fails
            # changes nothing; had SQLite rolled the whole transaction back, the batch
            # fails whole (the savepoint is gone, or no transaction is left).
            if several:
                db.execute("ROLLBACK TO run")
                db.execute("RELEASE run")
            elif in_transaction and not db.in_transaction:
                raise
            if in_transaction:
                return [self._one_append(db, a) for a in run]
            # One transaction for them all: were each its own, an error that makes
            # SQLite roll back (a full disk) would fail the whole batch after the
            # appends before it had committed, their callers told they failed.
            db.execute("BEGIN")
            outcomes: Outcomes = [self._one_append(db, a) for a in run]
            db.execute("COMMIT")
            return outcomes
        if several:
            db.execute("RELEASE run")
        for a in written:
            self._appended(a)
        return failures

    def _one_append(self, db: sqlite3.Connection, a: Append) -> Exception | None:
        refusal = self._refusal(a, self._txn_seqs)
        if refusal is not None:
            return refusal
        db.execute("SAVEPOINT one")
        try:
            insert_rows(db, a.values)
        except Exception as exc:
            db.execute("ROLLBACK TO one")
            db.execute("RELEASE one")
            return exc
        db.execute("RELEASE one")
        self._appended(a)
        return None
