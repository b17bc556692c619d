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

    The same value ``str(uuid.uuid4())`` gives, drawn without building a ``UUID`` object (three Python
    calls a tool call): 16 bytes of ``os.urandom`` with the version (4) and variant (10xx) bits set.
    """
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40
    raw[8] = raw[8] & 0x3F | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def key_hash(key: str) -> str:
    """Return the SHA-256 prefix (16 hex characters) of ``key``: safe for span attributes and logs."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:_HASH_CHARS]
