"""Settings from environment variables (prefix `HOLLYWOOD_GIN_`), with defaults.

A bad value stops start-up with a message naming the variable, never a
traceback deep inside the app.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import subprocess
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from hollywood_gin import __commit__

ENV_PREFIX = "HOLLYWOOD_GIN_"
PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent


def resource_dir(name: str) -> Path:
    """`static` or `templates`: inside the package when installed from the wheel
    (which maps them there), else at the top of the source tree, where they live."""
    packaged = PACKAGE_DIR / name
    return packaged if packaged.is_dir() else REPO_ROOT / name


# The browsers' public push services (docs/protocol-guide.md "Notifications").
DEFAULT_PUSH_SERVICES = (
    "https://fcm.googleapis.com",
    "https://updates.push.services.mozilla.com",
    "https://*.notify.windows.com",
    "https://*.push.apple.com",
)


class SettingsError(ValueError):
    """A setting from the environment could not be used."""


def _starting(value: str | None, prefixes: tuple[str, ...], says: str) -> str | None:
    """A setting that is a URL of some kinds: empty is not set (None); else it must
    start with one of `prefixes` (`says` names them in the refusal)."""
    if value is None or value == "":
        return None
    if not value.startswith(prefixes):
        raise ValueError(f"must start with {says}")
    return value


class Settings(BaseSettings):
    # A `.env` file in the working directory is read too; the environment wins over it.
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        extra="ignore",
        frozen=True,
        env_file=".env",
        env_file_encoding="utf-8",
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    data_file: Path = Path("./data/tables.sqlite3")
    # With the SQLite file: how long the oldest move of a commit waits for others to
    # join it. At human pace each move was a commit of its own, handed to the store's
    # thread and answered back: a third of the event loop's time
    # (docs/performance.md "Capacity at human pace"). At most this much latency a
    # move, and none while nobody joins (`GroupCommit`); 0: none.
    data_file_gather_seconds: float = Field(default=0.005, ge=0, le=0.05)
    # postgresql://user:password@host/db: every table in PostgreSQL, shared by several
    # workers behind HAProxy (docs/scale-out.md). Unset: the SQLite file, one process.
    database_url: str | None = None
    # With `database_url`: how long the oldest move of a commit waits for more to join
    # it (a batch that gathered during the commit before has waited already). Fewer,
    # larger commits (PostgreSQL's and the worker's CPU per move, docs/performance.md) for at most
    # this much latency per move, at low load only. 0: no gathering (nor the wait below).
    database_gather_seconds: float = Field(default=0.01, ge=0, le=0.05)
    # Then a commit of fewer moves than this waits on for more, until its oldest move
    # has waited `database_gather_max_seconds`: each worker's batches keep more of
    # their size when the load is shared by more workers (docs/performance.md: 4 workers at 97
    # moves/s each, 1.8 -> 2.5 moves a commit; one worker at 390/s already makes 4).
    # 1: no such wait.
    database_gather_appends: int = Field(default=4, ge=1, le=100)
    database_gather_max_seconds: float = Field(default=0.02, ge=0, le=0.1)
    # The public base URL (e.g. https://gin.example.org); otherwise from the request.
    public_url: str | None = None
    # Extra origins allowed to open WebSockets and to POST, besides the host's own.
    allowed_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Extra `Host` names answered, besides the public URL's host (or, without one,
    # this machine's names and IP addresses); any other Host gets 400.
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    # "text": one line per event with time and level; "json": one JSON object per line.
    log_format: Literal["text", "json"] = "text"
    # Prometheus metrics at GET /metrics (off: the path does not exist).
    metrics: bool = False
    # Tables idle longer than this are removed from memory and disk.
    table_expiry_days: float = Field(default=30.0, gt=0)
    # Limits: each answered with its error code (docs/protocol-guide.md "Limits").
    ws_max_message_bytes: int = Field(default=4096, ge=256)
    ws_messages_per_second: float = Field(default=10.0, gt=0)
    ws_burst: int = Field(default=30, ge=1)
    # permessage-deflate on WebSockets: a state shrinks to ~4%, but each socket costs
    # ~38 KB more and each action more CPU (docs/performance.md); off by default.
    ws_per_message_deflate: bool = False
    # WebSocket keepalive: a socket nothing came from for this many seconds is pinged
    # (0: none), and closed when nothing comes within the timeout, so a client gone
    # without a word (a phone switched off, a cut cable) is dropped within their sum.
    # One sweep for all sockets (`connections.Keepalive`), no timer a socket; the page
    # pings every 25 s by itself (docs/protocol-guide.md "Staying connected"), so its
    # sockets are never pinged. uvicorn's own 20 s cost 2-3 % of the CPU at human pace.
    ws_ping_seconds: float = Field(default=60.0, ge=0)
    ws_ping_timeout_seconds: float = Field(default=20.0, gt=0)
    # `python -m hollywood_gin serve` collects the young objects this often (0: only by
    # their count), so a pause walks only the moves since (docs/performance.md).
    gc_seconds: float = Field(default=0.1, ge=0)
    max_tabs_per_seat: int = Field(default=5, ge=1)
    max_spectators: int = Field(default=20, ge=0)
    tables_per_hour_per_address: int = Field(default=60, ge=1)
    # HTTP: largest request body (413), requests per second per address (429).
    max_body_bytes: int = Field(default=4096, ge=256)
    http_requests_per_second: float = Field(default=20.0, gt=0)
    http_burst: int = Field(default=20, ge=1)
    # Enforced by the server's own protocol layer (hollywood_gin/web/guard/connections.py).
    header_timeout_seconds: float = Field(default=10.0, gt=0)
    max_header_bytes: int = Field(default=32768, ge=1024)
    max_headers: int = Field(default=100, ge=10)
    max_connections_per_address: int = Field(default=100, ge=1)
    # A request body must arrive within this (408), and is refused past max_body_bytes
    # from its Content-Length, unread, or where it passes the limit (413).
    body_timeout_seconds: float = Field(default=10.0, gt=0)
    # Open connections in all (503 past it); 0: from the process's open-file limit,
    # with room kept for the store, logs and the computer's workers.
    max_connections: int = Field(default=0, ge=0)
    # Tables created per minute, all clients together, and live tables held (503
    # `busy` for a new table past either; play is never refused).
    tables_per_minute: int = Field(default=600, ge=1)
    max_live_tables: int = Field(default=20_000, ge=1)
    # New WebSockets per second per address (429 at the handshake).
    ws_connects_per_second: float = Field(default=5.0, gt=0)
    ws_connects_burst: int = Field(default=60, ge=1)
    # Honour X-Forwarded-For / X-Forwarded-Proto from these proxy addresses.
    trusted_proxies: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # The computer opponent waits this long before each move, so a person can follow.
    bot_delay_seconds: float = Field(default=0.8, ge=0)
    # A seat with no connection for this long is away: its opponent may claim the
    # match or let the computer stand in (docs/protocol-guide.md "Around the match").
    claim_after_seconds: float = Field(default=120.0, gt=0)
    # A table with no connection, no move for this long and nothing of its clock due
    # within this long leaves memory; it is read from the data file again on its next
    # request or deadline, and a start-up loads only what is live (0: every table stays
    # in memory, all are loaded at start-up). PostgreSQL mode: a table nobody looked at
    # for this long leaves the worker's memory (0: after 600 s).
    idle_table_seconds: float = Field(default=600.0, ge=0)
    # PostgreSQL mode: how often each worker looks (one query) for the tables no worker
    # holds whose clock fell due (a correspondence deadline, a "deadline soon" push).
    deadline_sweep_seconds: float = Field(default=30.0, gt=0)
    # Worker processes the computer opponents think in (never the server's own process).
    computer_processes: int = Field(default=1, ge=1, le=64)
    # The coach's sampled deals per decision of a hand review, at most (its cost).
    review_samples: int = Field(default=800, ge=20, le=10000)
    # Worker processes the coach's reviews are computed in, side by side (their own
    # pool: a computer's move never waits behind a review). Two suit a small box.
    review_processes: int = Field(default=2, ge=1, le=64)
    # Scripts and stylesheets served minified (rjsmin, rcssmin); off: as written, for
    # reading them in the browser's developer tools.
    minify_assets: bool = True
    # The HTTP API's schema at /openapi.json, for bot authors; it tells nothing the
    # docs don't (docs/bots.md "The HTTP API's schema"). Off: the path does not exist.
    openapi: bool = True
    # Web Push (docs/protocol-guide.md "Notifications"): the VAPID private key (base64url of
    # the raw 32-byte P-256 scalar); unset: made on first start and kept with the data.
    vapid_private_key: str | None = None
    # The VAPID `sub` (mailto: or https:); unset: the public URL when it is https, else
    # push is off.
    vapid_subject: str | None = None
    # The push services the server posts to (origins; a host may start with `*.`):
    # never an address a client chose.
    push_services: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(DEFAULT_PUSH_SERVICES)
    )
    # Correspondence tables: the length of a day in seconds (tests shorten it).
    seconds_per_day: float = Field(default=86400.0, gt=0)
    # Test hooks (a chosen deck order); never on in production.
    test_hooks: bool = False
    # The commit shown in the footer and /healthz; unset: the build's, or git's.
    commit: str | None = None

    @field_validator("vapid_subject")
    @classmethod
    def _subject(cls, value: str | None) -> str | None:
        return _starting(value, ("mailto:", "https:"), "mailto: or https:")

    @field_validator(
        "allowed_origins", "allowed_hosts", "trusted_proxies", "push_services", mode="before"
    )
    @classmethod
    def _comma_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        # A typo here would silently trust nobody (or be ignored): refuse it at start-up.
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(
                    f"{entry[:50]!r} is not an IP address or network (e.g. 10.0.0.0/8)"
                ) from None
        return value

    @field_validator("database_url")
    @classmethod
    def _database(cls, value: str | None) -> str | None:
        return _starting(value, ("postgresql://", "postgres://"), "postgresql://")

    @field_validator("public_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        url = _starting(value, ("http://", "https://"), "http:// or https://")
        return None if url is None else url.rstrip("/")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        """Read the environment; raise SettingsError naming each bad variable."""
        env = dict(os.environ if environ is None else environ)
        values = {
            key[len(ENV_PREFIX) :].lower(): value
            for key, value in env.items()
            if key.startswith(ENV_PREFIX)
        }
        try:
            # Values passed explicitly, so a test's dict never mixes with os.environ.
            return cls.model_validate(values) if environ is not None else cls()
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                field = str(err["loc"][0]) if err["loc"] else "?"
                problems.append(f"{ENV_PREFIX}{field.upper()}: {err['msg']}")
            raise SettingsError("bad setting: " + "; ".join(problems)) from None

    @property
    def push_subject(self) -> str | None:
        """The VAPID subject, or None: push is off (`check` says why)."""
        if self.vapid_subject:
            return self.vapid_subject
        if self.public_url and self.public_url.startswith("https://"):
            return self.public_url
        return None

    @property
    def table_expiry_seconds(self) -> float:
        return self.table_expiry_days * 86400.0


# Variables with the prefix that are no setting of the server: the test tools' own
# (tests/e2e/conftest.py, tests/e2e/test_wire_recording.py, .ci/run).
TOOL_VARIABLES = frozenset(
    {f"{ENV_PREFIX}CHROMIUM", f"{ENV_PREFIX}WIRE_DUMP", f"{ENV_PREFIX}RECORD_WIRE"}
)


def setting_names() -> list[str]:
    return sorted(f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields)


def unknown_variables(
    environ: dict[str, str] | None = None, env_file: Path | None = Path(".env")
) -> list[str]:
    """One warning per `HOLLYWOOD_GIN_*` variable (environment or `.env`) that no setting
    reads, with the nearest known name: a misspelled setting is otherwise ignored."""
    names = {k.upper() for k in (os.environ if environ is None else environ)}
    if env_file is not None and env_file.is_file():
        from dotenv import dotenv_values  # pydantic-settings' own reader of .env

        names |= {k.upper() for k in dotenv_values(env_file)}
    known = setting_names()
    warnings = []
    for name in sorted(n for n in names if n.startswith(ENV_PREFIX)):
        if name in known or name in TOOL_VARIABLES:
            continue
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        hint = f"did you mean {near[0]}?" if near else "the settings are listed in the README"
        warnings.append(f"unknown setting {name[:80]} (ignored): {hint}")
    return warnings


def masked_url(url: str) -> str:
    """postgresql://gin:secret@db/gin -> postgresql://gin:***@db/gin (for output)."""
    scheme, sep, rest = url.partition("://")
    credentials, at, place = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}{sep}{user}:***@{place}"


def build_id(version: str, commit: str | None) -> str:
    """What a page and its socket compare: another build, another client (a reload)."""
    return f"{version} {commit}" if commit else version


def read_commit(settings: Settings) -> str | None:
    """The short commit: the setting, else git (a checkout), else the wheel's build."""
    if settings.commit:
        return settings.commit[:12]
    return source_commit()


def source_commit() -> str | None:
    """The commit of this code: git's in a checkout, else the one the wheel was built from."""
    if not (REPO_ROOT / ".git").exists():
        return __commit__  # installed from the wheel: written at build time
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit or __commit__
