"""Logging for the server: one line per event with time and level, text or JSON.

uvicorn configures only its own loggers; this configures them and the app's
(`hollywood_gin.*`) alike, through one handler whose filter keeps secrets out
of every line: a seat token never appears, a table id only shortened. JSON lines
are python-json-logger's, with a request's fields (`method`, `path`, `status`,
`duration_ms`, `client`) on each access line (`AccessLog`, in place of uvicorn's).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as LibraryJsonFormatter

# A seat token in a path (the personal seat link), table ids in paths, and any other
# run of 22 or more URL-safe characters (a table id is 22, a token 43, a hash 64).
_SEAT_TOKEN = re.compile(r"(/seat/|[?&]token=)[A-Za-z0-9_%-]+")
_TABLE_ID = re.compile(r"(/t/|/tables/)([A-Za-z0-9_-]{8})[A-Za-z0-9_-]+")
_LONG_ID = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22,}(?![A-Za-z0-9_-])")
# A class name such as `ConnectionRefusedError` is as long as an id and mixes cases too;
# letters only and that ending: a random id looks so about once in 10^12.
_EXCEPTION_NAME = re.compile(r"[A-Z][A-Za-z]*(Error|Exception|Warning)")


def _shorten(found: re.Match[str]) -> str:
    word = found.group(0)
    if _EXCEPTION_NAME.fullmatch(word):
        return word
    # Random ids mix cases; a file or function name in lower case stays whole.
    if len(word) >= 40 or (word != word.lower() and word != word.upper()):
        return word[:8] + "…"
    return word


def redact(text: str) -> str:
    """`/t/<id>/seat/<token>` -> `/t/<id[:8]>…/seat/…`: enough to follow, too little to act."""
    text = _SEAT_TOKEN.sub(r"\1…", text)
    text = _TABLE_ID.sub(r"\1\2…", text)
    return _LONG_ID.sub(_shorten, text)


TRACEBACK = "Traceback (most recent call last):"

# A request's fields on an access line, beside its message.
ACCESS_FIELDS = ("method", "path", "status", "duration_ms", "client")


class Redact(logging.Filter):
    """Renders each record's message once, without secrets (access lines carry raw paths)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.name == "uvicorn.error" and message.startswith(TRACEBACK):
            # A start (or stop) that failed in the app's lifespan: uvicorn logs the
            # traceback it was sent as a message. A host needs its last line, the
            # exception; "Application startup failed. Exiting." follows.
            message = message.strip().splitlines()[-1]
            record.msg, record.args = message, ()
        clean = redact(message)
        if clean != message or record.args:
            record.msg, record.args = clean, ()
        # uvicorn's copy of the message with terminal colours: unredacted, never shown.
        record.__dict__.pop("color_message", None)
        path = record.__dict__.get("path")
        if isinstance(path, str):
            record.__dict__["path"] = redact(path)
        return True


def utc_time(record: logging.LogRecord) -> str:
    """ISO 8601 in UTC, to the millisecond: lines from several hosts sort together."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{stamp}.{int(record.msecs):03d}Z"


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return utc_time(record)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))  # a traceback's text too


class JsonFormatter(LibraryJsonFormatter):
    """One JSON object per line (python-json-logger): `time` (UTC, ISO 8601), `level`,
    `logger`, `message`, a request's fields where the line has them, `exc_info` (a
    traceback, redacted) on an error."""

    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger"},
            reserved_attrs=[*RESERVED_ATTRS, "color_message", "taskName"],
            json_ensure_ascii=False,
        )

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        log_data["time"] = utc_time(record)
        super().add_fields(log_data, record, message_dict)

    def formatException(self, ei: Any) -> str:
        return redact(str(super().formatException(ei)))


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("hollywood_gin.access")


class AccessLog:
    """One line per HTTP request, when its answer is sent: method, path (redacted),
    status and duration; the text line reads like uvicorn's, which it replaces."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not access_log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            self.line(scope, status, time.perf_counter() - start)

    @staticmethod
    def line(scope: Scope, status: int, seconds: float) -> None:
        query = scope.get("query_string", b"").decode("latin-1")
        path = redact(scope.get("path", "") + (f"?{query}" if query else ""))
        client = scope.get("client")
        where = f"{client[0]}:{client[1]}" if client else "-"
        method = scope.get("method", "")
        duration_ms = round(seconds * 1000, 1)
        access_log.info(
            '%s - "%s %s HTTP/%s" %d %.1f ms',
            where,
            method,
            path,
            scope.get("http_version", "1.1"),
            status,
            duration_ms,
            extra={
                "method": method,
                "path": path,
                "status": status,
                "duration_ms": duration_ms,
                "client": client[0] if client else None,
            },
        )


def log_config(level: str, fmt: str) -> dict[str, Any]:
    """A `logging.config.dictConfig` for uvicorn's `log_config`: every logger, one handler."""
    upper = level.upper()
    formatter = {"()": f"{__name__}.{'JsonFormatter' if fmt == 'json' else 'TextFormatter'}"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": f"{__name__}.Redact"}},
        "formatters": {"line": formatter},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "line",
                "filters": ["redact"],
            }
        },
        "loggers": {
            name: {"handlers": ["stderr"], "level": upper, "propagate": False}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "hollywood_gin")
        },
    }
