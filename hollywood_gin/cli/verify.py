"""`verify FILE`: a downloaded hand record's deck checked against the documented
derivation (docs/protocol-guide.md "Deals nobody can choose"); no settings needed,
anyone may run it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hollywood_gin.cli.output import say
from hollywood_gin.engine.dealer import check_entropy, derive_deck, secret_commitment
from hollywood_gin.engine.errors import BadAction


def run_verify(file: Path, commitment: str | None, entropy: str | None) -> int:
    """Check a hand record's deck against the documented derivation; print what holds."""
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
        deck = [str(c) for c in record["deck"]]
        salt = str(record["salt"])
        secret_hex = record.get("server_secret")
        seats = record.get("entropy") or [None, None]
        number = record.get("number", "?")
        given = [None if e is None else bytes.fromhex(check_entropy(e)) for e in seats[:2]]
        secret = None if secret_hex is None else bytes.fromhex(secret_hex)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, BadAction) as exc:
        say(f"{file}: not a hand record ({type(exc).__name__}: {exc})")
        return 2
    fingerprint = hashlib.sha256(f"{salt}:{','.join(deck)}".encode()).hexdigest()
    print(f"hand {number}")
    print(f"deck fingerprint (deck_commitment): {fingerprint}")
    if secret is None or len(secret) != 32:
        print("server secret: none (a test deck or a deal made before secrets): not derived")
        return 2
    failed = 0
    derived = [str(c) for c in derive_deck(secret, given)]
    print(f"server secret commitment (next_deal): {secret_commitment(secret)}")
    for seat, e in enumerate(seats[:2]):
        print(f"seat {seat} entropy: {e or 'none'}")
    ok = derived == deck
    failed += not ok
    print(f"deck derived from the secrets: {'ok' if ok else 'DIFFERENT'}")
    if commitment is not None:
        ok = commitment.strip().lower() == secret_commitment(secret)
        failed += not ok
        print(f"commitment you saw: {'ok' if ok else 'DIFFERENT'}")
    if entropy is not None:
        ok = entropy.strip().lower() in [e.lower() for e in seats[:2] if e]
        failed += not ok
        print(f"your entropy used: {'ok' if ok else 'NOT FOUND'}")
    return 1 if failed else 0
