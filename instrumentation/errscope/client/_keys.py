"""Idempotency keys on the client side: one per logical call, reused by every retry of it.

A key is minted once, before the first attempt, and travels in the request's ``_meta`` under a
configurable name (default :data:`errscope._attributes.META_IDEMPOTENCY_KEY`). Spans only ever
carry :func:`key_hash` of it, never the key.
"""

from __future__ import annotations

import hashlib
import os

__all__ = ["key_hash", "new_idempotency_key"]

_HASH_CHARS = 16


def new_idempotency_key() -> str:
    """Return a fresh idempotency key: a random UUID4 in its canonical text form (RFC 9562 §5.4).

    The bits ``uuid.uuid4()`` draws (16 bytes of ``os.urandom``), with the version and variant set
    in place: ``str(uuid.uuid4())`` builds and checks a ``UUID`` object only to print it, three
    times this on a call's hot path.
    """
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # variant 10xx (RFC 9562)
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def key_hash(key: str) -> str:
    """Return the SHA-256 prefix (16 hex characters) of ``key``: safe for span attributes and logs."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:_HASH_CHARS]
