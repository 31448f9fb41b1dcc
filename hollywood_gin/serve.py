"""`hollywood-gin serve`: serve the site with uvicorn, settings from the environment.

`python -m hollywood_gin` and `hollywood-gin` run the commands of `hollywood_gin.cli`,
which serve by default.
"""

from __future__ import annotations

import contextlib
import gc
import os
import resource
import sys

import uvicorn

from hollywood_gin.config import Settings, SettingsError
from hollywood_gin.logs import log_config
from hollywood_gin.main import create_app
from hollywood_gin.tables.sqlite_file import (
    NewerSchema,
    UnusableFile,
    file_schema_version,
    refuse_newer,
)
from hollywood_gin.web import connections

# Collect young objects every 50,000 net allocations (not 700), the middle
# generation every 20 of those, the whole heap only every 100 of those. Each
# socket keeps ~270 objects alive (the ASGI chain), so with 1000 tables the heap
# holds ~570,000: CPython's defaults walked it every few seconds, up to 0.7 s each,
# stalling every table (docs/performance.md).
GC_THRESHOLDS = (50_000, 20, 100)


def raise_open_files() -> None:
    """The soft limit of open files up to the hard one: each socket is a file, and the
    per-address cap (not the process's files) should be what a crowd meets first."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def tune_gc() -> None:
    """Freeze what start-up made (never garbage) and collect less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def main() -> int:
    # Files the server makes (the data file, its WAL, logs) are its user's alone: the
    # data file holds every running hand's deck.
    os.umask(0o077)
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"hollywood-gin: {exc}", file=sys.stderr)
        return 2
    try:
        version = None if settings.database_url else file_schema_version(settings.data_file)
        if version is not None:
            refuse_newer(settings.data_file, version)
    except (NewerSchema, UnusableFile) as exc:
        print(f"hollywood-gin: {exc}", file=sys.stderr)
        return 2
    app = create_app(settings)
    tune_gc()
    # One worker on purpose: a table's state lives in this process
    # (docs/architecture.md "One owner per table").
    raise_open_files()
    http_protocol, ws_protocol = connections.protocols(settings)
    uvicorn.run(
        app,
        http=http_protocol,
        ws=ws_protocol,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=log_config(settings.log_level, settings.log_format),
        server_header=False,  # no "Server: uvicorn": nothing to fingerprint
        access_log=False,  # hollywood_gin.logs.AccessLog writes each request's line
        ws_max_size=settings.ws_max_message_bytes * 4,
        ws_per_message_deflate=settings.ws_per_message_deflate,
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=",".join(settings.trusted_proxies) or None,
        timeout_graceful_shutdown=5,
    )
    return 0
