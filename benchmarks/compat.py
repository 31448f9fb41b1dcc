"""What benchmarks read of a view, for this checkout and older ones (`bench_versions`
runs both): before the typed views, `Match.view` returned the wire dict itself."""

from __future__ import annotations

from typing import Any

import orjson


def legal(view: Any) -> list[dict[str, Any]]:
    """A view's `legal` as sent (wire dicts)."""
    if isinstance(view, dict):
        return list(view["legal"])
    return list(view.legal_wire())


def state(view: Any) -> dict[str, Any]:
    """A view as sent: the `state` body without the table's id and players."""
    if isinstance(view, dict):
        return view
    body: dict[str, Any] = orjson.loads(orjson.dumps(view.wire()))
    return body
