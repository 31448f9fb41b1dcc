"""The tables layer's refusals: `TableError` and its kinds, each with its wire `code`
(docs/protocol-guide.md "Errors"). The layer's root in the one family of `Refusal`s
(`hollywood_gin.engine.errors`); the web layer answers them (`hollywood_gin.web.errors`)."""

from __future__ import annotations

from hollywood_gin.engine.errors import Refusal


class TableError(Refusal):
    """Base of every refusal by the tables layer; `code` is the wire error code."""

    code = "bad_request"


class UnknownTable(TableError):
    code = "unknown_table"


class TableFull(TableError):
    code = "table_full"


class NoBots(TableError):
    """A bot asked for a seat at a table created with `"bots": false`."""

    code = "no_bots"


class NotAllowed(TableError):
    """Not at this table: a hint between two people (only a game against the computer
    is practice)."""

    code = "not_allowed"


class UnknownHand(TableError):
    code = "unknown_hand"


class StoreUnavailable(TableError):
    """The store could not record a change (a full disk, an I/O error): nothing changed."""

    code = "server_error"


class Moved(StoreUnavailable):
    """Another worker claimed the table: this one dropped it; its clients reconnect."""
