"""The tables this worker holds, by id, and who is told when one comes or goes.

The ownership adds a table (created, loaded, claimed) and drops it (expired, moved
to another worker, idle); each collaborator that keeps something per table (the
writer's ledger, the presence's crowd, the computer's seats) is told here and
forgets it then, so nothing of a table outlives its being held.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterable, ValuesView

from hollywood_gin.tables.table import Table

Told = Callable[[Table], None]


class Held:
    """The tables held here by id; `arrived` and `left` are told of each, in order."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.arrived: list[Told] = []
        self.left: list[Told] = []
        # Asked before an idle table is let go: is something still working at it
        # (the computer moving or standing in)?
        self.keepers: list[Callable[[str], bool]] = []

    def get(self, table_id: str) -> Table | None:
        return self.tables.get(table_id)

    def holds(self, table: Table) -> bool:
        """Whether `table` itself is held (not a table of that id claimed anew)."""
        return self.tables.get(table.id) is table

    def add(self, *tables: Table) -> None:
        """Hold `tables` (all of them first, then each is told: the computer may move)."""
        for table in tables:
            self.tables[table.id] = table
        for table in tables:
            for told in self.arrived:
                told(table)

    def drop(self, table: Table) -> bool:
        """Let go of `table`; False when it was not held (gone already, or claimed anew)."""
        if self.tables.get(table.id) is not table:
            return False
        del self.tables[table.id]
        for told in self.left:
            told(table)
        return True

    def kept(self, table_id: str) -> bool:
        """Whether a keeper is still working at the table."""
        return any(keeper(table_id) for keeper in self.keepers)

    def values(self) -> ValuesView[Table]:
        return self.tables.values()

    def items(self) -> ItemsView[str, Table]:
        return self.tables.items()

    def ids(self) -> Iterable[str]:
        return self.tables.keys()

    def __len__(self) -> int:
        return len(self.tables)
