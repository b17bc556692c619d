"""Rules made from parameters, shared by the families: a fixed class, "unavailable" with or without a sent
request, deferring to or wrapping the cause, a status named by a library's class.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Final

from errscope._classify._core import Classification, Rule, Upstream, _UNKNOWN, classify
from errscope._classify._facts import _attribute, _raised_connecting
from errscope._foreign_text import classify_text, never_reached, retry_after_from_text, says_maybe_acted
from errscope._http import class_for_http_status, side_effect_for_http_status
from errscope._vocabulary import FailureClass


def _fixed(failure_class: FailureClass, side_effect_possible: bool | None = None) -> Rule:
    result = Classification(failure_class, side_effect_possible=side_effect_possible)
    return lambda exc: result


def _defer(exc: BaseException) -> None:
    return None


# Socket errnos of a network failure -> whether the request may have been delivered (POSIX connect(2),
# send(2), recv(2)): the peer refused or could not be reached, or the connection broke once open.
_NETWORK_ERRNOS: Final = {
    errno.ECONNREFUSED: False,
    errno.ENETUNREACH: False,
    errno.EHOSTUNREACH: False,
    errno.EADDRNOTAVAIL: False,
    errno.ECONNRESET: True,
    errno.ECONNABORTED: True,
    errno.EPIPE: True,
    errno.ETIMEDOUT: True,
}


def _unavailable(side_effect_possible: bool | None, system: str | None = None) -> Rule:
    """upstream_unavailable with what the exception's type (else its errno) tells about delivery."""

    def rule(exc: BaseException) -> Classification:
        upstream = Upstream(system, type(exc).__name__) if system else None
        sent = side_effect_possible
        if sent is None:
            sent = _NETWORK_ERRNOS.get(getattr(exc, "errno", None))  # type: ignore[arg-type]
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=upstream, side_effect_possible=sent)

    return rule


def _wrapping(inner: Callable[[BaseException], object], fallback: Rule) -> Rule:
    """A library wrapper that carries the real failure as an attribute (``reason``, ``args[0]``, its
    context): that one decides the class and the side-effect fact, else ``fallback`` does. When the wrapped failure
    names no upstream (a builtin ``ConnectionResetError``, http.client's ``RemoteDisconnected`` inside urllib3's
    ``ProtocolError``), the wrapper's own (``fallback``'s system, its type as the status) is the upstream: the on-call
    engineer still learns which protocol failed (DESIGN: ``errscope.upstream.*`` on the tool span)."""

    def rule(exc: BaseException) -> Classification:
        wrapped = inner(exc)
        result = classify(wrapped) if isinstance(wrapped, BaseException) and wrapped is not exc else None
        if result is None or result.failure_class is FailureClass.UNKNOWN:
            return fallback(exc) or _UNKNOWN
        if result.upstream is None:
            own = fallback(exc)
            if own is not None and own.upstream is not None:
                result = replace(result, upstream=own.upstream)
        return result

    return rule


def _delivery_from_cause(rule: Rule, *, open_only: bool = False) -> Rule:
    """``rule``, with the delivery fact of the transport failure the exception was raised ``from`` when that one
    knows it (a wrapper whose class says less than its cause: azure-core's aiohttp transport); with ``open_only``,
    only where ``rule`` leaves it open, from the failure it was raised over (the neo4j driver's ServiceUnavailable
    over a read that was reset or timed out on a connection in use: the request was sent; its WriteServiceUnavailable
    raised while handling the server's NotALeader: refused, nothing written)."""

    def decide(exc: BaseException) -> Classification:
        result = rule(exc) or _UNKNOWN
        below = (exc.__cause__ or exc.__context__) if open_only else exc.__cause__
        if below is not None and not (open_only and result.side_effect_possible is not None):
            inner = classify(below)
            if inner.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and inner.side_effect_possible is not None:
                result = replace(result, side_effect_possible=inner.side_effect_possible)
        return result

    return decide


def _never_sent(rule: Rule) -> Rule:
    return lambda exc: replace(rule(exc) or _UNKNOWN, side_effect_possible=False)


def _never_sent_when_connecting(rule: Rule, package: str) -> Rule:
    """``rule``, and not sent when raised inside ``package``'s ``connect`` (see :func:`_raised_connecting`)."""
    return lambda exc: _never_sent(rule)(exc) if _raised_connecting(exc, package) else rule(exc)


def _reason_or_chain(exc: BaseException) -> BaseException | None:
    reason = getattr(exc, "reason", None)
    return reason if isinstance(reason, BaseException) else exc.__cause__ or exc.__context__


def _first_address_error(exc: BaseException) -> object:
    # paramiko's NoValidConnectionsError, cassandra-driver's NoHostAvailable: {address: the error there}
    errors = getattr(exc, "errors", None)
    return next(iter(errors.values()), None) if isinstance(errors, Mapping) else None


def _first_exception_arg(exc: BaseException) -> BaseException | None:
    return next((arg for arg in exc.args if isinstance(arg, BaseException)), None)


def _unavailable_unless_connecting(system: str, package: str | None = None) -> Rule:
    """upstream_unavailable that was not sent when raised inside ``package``'s ``connect`` (the
    connection never opened), else open (a connection lost while in use)."""

    def rule(exc: BaseException) -> Classification:
        sent = False if _raised_connecting(exc, package) else None
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream(system, type(exc).__name__),
                              side_effect_possible=sent)

    return rule


def _status_named(status: int, system: str) -> Rule:
    """For an SDK that raises one exception class per HTTP status and keeps nothing else (hvac):
    the status its class stands for."""
    result = Classification(class_for_http_status(status), upstream=Upstream(system, str(status)),
                            side_effect_possible=side_effect_for_http_status(status))
    return lambda exc: result


def _upstream_words(attribute: str) -> Rule:
    """For an SDK's catch-all error that keeps only the upstream API's own error text (``attribute``): that text,
    read with the foreign-text rules (``classify_text``). An API's error answer refused the request as a whole
    (nothing done) unless its words say it failed midway; ``None`` (the chain, then the type's name, decide) when
    the words say nothing known."""

    def rule(exc: BaseException) -> Classification | None:
        text = _attribute(exc, attribute)
        if not isinstance(text, str) or not text.strip():
            return None
        failure_class = classify_text(text)
        if failure_class is FailureClass.UNKNOWN:
            return None
        if failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
            sent = True if says_maybe_acted(text) else False if never_reached(text) else None
        else:
            sent = False
        wait = retry_after_from_text(text) if failure_class is FailureClass.RATE_LIMITED else None
        return Classification(failure_class, retry_after=wait, side_effect_possible=sent)

    return rule


_UNKNOWN_RULE: Final = _fixed(FailureClass.UNKNOWN)
_NOT_THERE: Final = _fixed(FailureClass.NOT_FOUND, False)
_UNAVAILABLE_NOT_SENT: Final = _unavailable(False)
_UNAVAILABLE_MAYBE_SENT: Final = _unavailable(True)
_UNAVAILABLE: Final = _unavailable(None)
