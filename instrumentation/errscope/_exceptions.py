"""The exception family tool authors raise to say what went wrong.

Hierarchy (one leaf per :class:`~errscope.FailureClass`, httpx-style)::

    ToolFailure
    ├── NotFound              not_found
    ├── PermissionDenied      permission_denied
    ├── RateLimited           rate_limited          retry_after=seconds
    ├── UpstreamUnavailable   upstream_unavailable
    └── InvalidInput          invalid_input         field=path of the offending argument

``str(exc)`` is for operators and may hold anything; it never reaches the model. What the model may
read is ``public_message``: text the author vouches for, which is still scrubbed before it is sent.
"""

from __future__ import annotations

from typing import ClassVar

from errscope._vocabulary import FailureClass

__all__ = [
    "InvalidInput",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "ToolFailure",
    "UpstreamUnavailable",
]


class ToolFailure(Exception):
    """Root of the family. Raise a leaf; ``failure_class`` says which class it lands on.

    Args:
        message: operator-facing detail (logged scrubbed, never shown to the model).
        public_message: text the model may read, e.g. ``"order A-1 belongs to another account"``.
        upstream_status: the upstream's own status (``"404"``, ``"57P01"``) for the tool span.
        upstream_system: ``http``, ``postgresql``, ...
    """

    failure_class: ClassVar[FailureClass] = FailureClass.UNKNOWN

    def __init__(
        self,
        message: str = "",
        *,
        public_message: str | None = None,
        upstream_status: str | None = None,
        upstream_system: str | None = None,
    ) -> None:
        super().__init__(message or public_message or self.failure_class.value)
        self.public_message = public_message
        self.upstream_status = upstream_status
        self.upstream_system = upstream_system


class NotFound(ToolFailure):
    """The thing the call named does not exist (or is not visible to this caller)."""

    failure_class = FailureClass.NOT_FOUND


class PermissionDenied(ToolFailure):
    """The caller may not do this; retrying will not help."""

    failure_class = FailureClass.PERMISSION_DENIED


class RateLimited(ToolFailure):
    """The upstream asked us to slow down.

    Args:
        retry_after: seconds to wait before trying again, when known (HTTP ``Retry-After``, RFC 9110 §10.2.3).
    """

    failure_class = FailureClass.RATE_LIMITED

    def __init__(self, message: str = "", *, retry_after: float | None = None, **kwargs: str | None) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class UpstreamUnavailable(ToolFailure):
    """A backing service is down, timing out or refusing connections."""

    failure_class = FailureClass.UPSTREAM_UNAVAILABLE


class InvalidInput(ToolFailure):
    """The arguments are wrong in a way the model can fix.

    Args:
        field: dotted path of the offending argument (``"items.0.sku"``), named to the model.
        expected: what the field must be (``"an ISO-8601 date"``), named to the model.
    """

    failure_class = FailureClass.INVALID_INPUT

    def __init__(
        self,
        message: str = "",
        *,
        field: str | None = None,
        expected: str | None = None,
        **kwargs: str | None,
    ) -> None:
        super().__init__(message, **kwargs)
        self.field = field
        self.expected = expected
