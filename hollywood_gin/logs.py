"""Logging for the server: one line per event with time and level, text or JSON.

uvicorn configures only its own loggers; this configures them and the app's
(`hollywood_gin.*`) alike, through one handler whose filter keeps secrets out
of every line: a seat token never appears, a table id only shortened.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

# A seat token in a path (the personal seat link), table ids in paths, and any other
# run of 22 or more URL-safe characters (a table id is 22, a token 43, a hash 64).
_SEAT_TOKEN = re.compile(r"(/seat/|[?&]token=)[A-Za-z0-9_%-]+")
_TABLE_ID = re.compile(r"(/t/|/tables/)([A-Za-z0-9_-]{8})[A-Za-z0-9_-]+")
_LONG_ID = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22,}(?![A-Za-z0-9_-])")


def _shorten(found: re.Match[str]) -> str:
    word = found.group(0)
    # Random ids mix cases; a file or function name in lower case stays whole.
    if len(word) >= 40 or (word != word.lower() and word != word.upper()):
        return word[:8] + "…"
    return word


def redact(text: str) -> str:
    """`/t/<id>/seat/<token>` -> `/t/<id[:8]>…/seat/…`: enough to follow, too little to act."""
    text = _SEAT_TOKEN.sub(r"\1…", text)
    text = _TABLE_ID.sub(r"\1\2…", text)
    return _LONG_ID.sub(_shorten, text)


class Redact(logging.Filter):
    """Renders each record's message once, without secrets (access lines carry raw paths)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message or record.args:
            record.msg, record.args = clean, ()
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


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": utc_time(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False)


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
