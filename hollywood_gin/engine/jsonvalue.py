"""JSON as the engine writes it: what `to_json` returns and orjson writes.

Read-only containers (a tuple is as good as a list to orjson), so a value can hand
out its own parts without a copy. What is read back is `object` until checked
(each `from_json` checks it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

Json: TypeAlias = "bool | int | float | str | Sequence[Json] | Mapping[str, Json] | None"
# One JSON object as written: a log entry, a hand's record, a message body.
JsonObject: TypeAlias = "dict[str, Json]"
