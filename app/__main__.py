"""`python -m app`: serve the site with uvicorn, settings from the environment."""

from __future__ import annotations

import sys

import uvicorn

from app.config import Settings, SettingsError
from app.main import create_app


def main() -> int:
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"hollywood-gin: {exc}", file=sys.stderr)
        return 2
    # One worker on purpose: a table's state lives in this process (ARCHITECTURE.md).
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        ws_max_size=settings.ws_max_message_bytes * 4,
        ws_per_message_deflate=settings.ws_per_message_deflate,
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=",".join(settings.trusted_proxies) or None,
        timeout_graceful_shutdown=5,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
