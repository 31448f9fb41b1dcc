"""One group commit's transaction on the SQLite file (`GroupCommit` hands it a batch).

Every write of the batch goes into one transaction; a write that fails is undone
alone (a savepoint) and the others commit. Appends are data (`Append`), so a run
of them is one multi-row `INSERT`; their gap check is made against each table's
last seq, kept here for the tables in memory (`BatchWriter`), without a query. A
batch of appends alone (the usual one) is that one statement and its own
transaction: no `BEGIN`, savepoint or `COMMIT` around it. Everything here runs on
the store's worker thread, the only one that runs SQL on its connection.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import deque
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
    """Commits batches of writes, and knows the last seq of each table in memory.

    The last seq (-1: no event yet) of a table is read from the file on its first
    append or claim (`last_seq`, one look-up by the events' key) and kept by the worker
    thread alone, so the gap check of an append and the refusal of an append to a
    table that is not stored need no query; it goes when the table leaves memory
    (`forget`). A table out of memory costs nothing here: what asks about every stored
    table (expiry, the start-up's choice) asks the file. The running transaction's
    changes are kept only if it commits.
    """

    def __init__(self) -> None:
        self._last_seq: dict[str, int] = {}
        # The running transaction's changes (None: the table is gone).
        self._txn_seqs: dict[str, int | None] = {}
        # Tables that left memory, told from the event loop's thread: dropped by the
        # worker before its next look (`_forget_left`), so in the order they came.
        self._left: deque[str] = deque()
        self.commits = 0
        self.writes = 0

    def forget(self, table_id: str) -> None:
        """The table left memory (any thread): its last seq goes."""
        self._left.append(table_id)

    def _forget_left(self) -> None:
        while self._left:
            self._last_seq.pop(self._left.popleft(), None)

    def kept(self) -> int:
        """Tables whose last seq is kept (tests, benchmarks), on the worker thread."""
        self._forget_left()
        return len(self._last_seq)

    def last_seq(self, db: sqlite3.Connection, table_id: str) -> int | None:
        """The table's last committed seq (-1: no event yet); None: not stored. Read
        from the file the first time (a claim, a first append), kept from then."""
        self._forget_left()
        last = self._last_seq.get(table_id)
        if last is not None:
            return last
        # Integers only: a seq stored as text or a blob is damage, read_tables sets it
        # aside. Text and blobs sort after integers, so the key's order finds it.
        row = db.execute(
            "SELECT (SELECT seq FROM events WHERE table_id = ?1 AND typeof(seq) = 'integer'"
            " ORDER BY seq DESC LIMIT 1) FROM tables WHERE id = ?1",
            (table_id,),
        ).fetchone()
        if row is None:
            return None
        last = -1 if row[0] is None else int(row[0])
        self._last_seq[table_id] = last
        return last

    def created(self, table_id: str, last: int) -> None:
        """For a write of the running transaction: the table is stored, its log ends at `last`."""
        self._txn_seqs[table_id] = last

    def deleted(self, table_ids: Iterable[str]) -> None:
        """For a write of the running transaction: the tables are gone."""
        for table_id in table_ids:
            self._txn_seqs[table_id] = None

    def commit(self, db: sqlite3.Connection, writes: list[Job]) -> Outcomes:
        """One transaction for the batch; a failing write is undone alone (a savepoint).

        Consecutive appends go in as one `INSERT` of events (CHUNK rows a statement),
        their gap check done against the last seqs; only when SQLite refuses that are
        they retried one by one, each in its own savepoint. A batch of appends alone
        that fits one statement is that statement, its own transaction.
        """
        self._forget_left()
        if len(writes) == 1 and self._lone_append(db, writes[0]):
            return [None]
        self._txn_seqs = {}
        try:
            alone = self._one_statement(writes)
            if alone is not None:
                failures = self._appends(db, alone, in_transaction=False)
            else:
                failures = self._transaction(db, writes)
        except BaseException:
            self._txn_seqs = {}
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            # What the file holds is known for sure only by reading it again: each
            # table's last seq is read anew on its next append.
            self._last_seq.clear()
            raise
        self._keep()
        self._txn_seqs = {}
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
        if last is None:
            last = self.last_seq(db, write.table_id)
        if last is None or last + 1 != write.first_seq:
            return False
        try:
            db.execute(_INSERTS[write.count], write.values)
        except Exception:  # the general way tries it again and answers as it does
            return False
        self._last_seq[write.table_id] = write.first_seq + write.count - 1
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

    def _stored_last(
        self, db: sqlite3.Connection, table_id: str, ends: dict[str, int | None]
    ) -> int | None:
        """The table's last seq as of this point of the transaction; None: not stored."""
        if table_id in ends:
            return ends[table_id]
        return self.last_seq(db, table_id)

    def _refusal(
        self, db: sqlite3.Connection, a: Append, ends: dict[str, int | None]
    ) -> Exception | None:
        last = self._stored_last(db, a.table_id, ends)
        if last is None:
            return RuntimeError(f"no stored table {a.table_id}")
        if last + 1 != a.first_seq:
            return gap_error(a.table_id, last, a.first_seq)
        return None

    def _appended(self, a: Append) -> None:
        """For the running transaction: `a` is written."""
        self._txn_seqs[a.table_id] = a.first_seq + a.count - 1

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
            refusal = self._refusal(db, a, ends)
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
        refusal = self._refusal(db, a, self._txn_seqs)
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
