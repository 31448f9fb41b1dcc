"""What every command says when it cannot do its work: one line on stderr."""

from __future__ import annotations

import sys


def say(message: str) -> None:
    print(f"hollywood-gin: {message}", file=sys.stderr)
