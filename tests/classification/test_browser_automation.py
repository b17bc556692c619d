"""Browser automation a tool drives: Selenium's Remote WebDriver against a real W3C WebDriver peer on 127.0.0.1 (an
HTTP server answering the spec's error documents, https://www.w3.org/TR/webdriver2/#errors), and Playwright's
Python client (its bundled Node driver) connecting to a browser endpoint or calling an HTTP API that fails.

Selenium keeps a WebDriver error code only as its exception class (``SessionNotCreatedException`` for "session not
created"), with no status; a dead endpoint is urllib3's own error, raised bare. Playwright raises its ``Error`` with
the Node driver's text only ("connect ECONNREFUSED 127.0.0.1:9222", "getaddrinfo ENOTFOUND host", "read
ECONNRESET"), and its ``TimeoutError`` when its own deadline passes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import urllib3
from playwright.sync_api import Error as PlaywrightError, Playwright, TimeoutError as PlaywrightTimeout, sync_playwright
from selenium import webdriver
from selenium.common import exceptions as se
from selenium.webdriver.remote.client_config import ClientConfig

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

SHORT = 0.3


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    logging.disable(logging.CRITICAL)  # urllib3 warns of every refused connection it retries
    yield
    logging.disable(logging.NOTSET)


# --- Selenium -----------------------------------------------------------------------------------------------------

def _new_session(base: str, timeout: float = 5) -> Callable[[], Any]:
    config = ClientConfig(remote_server_addr=base, timeout=timeout)
    return lambda: webdriver.Remote(command_executor=base, options=webdriver.ChromeOptions(), client_config=config)


def _w3c_error(code: str) -> str:
    return json.dumps({"value": {"error": code, "message": "upstream said no", "stacktrace": ""}})


@pytest.mark.parametrize(("status", "code", "kind", "failure_class", "side_effect"), [
    # a driver or a Grid that cannot start a browser (no free node, a driver for another browser version)
    (500, "session not created", se.SessionNotCreatedException, C.UPSTREAM_UNAVAILABLE, False),
    # the session the call names is gone (closed, its browser crashed, the Grid timed it out)
    (404, "invalid session id", se.InvalidSessionIdException, C.NOT_FOUND, False),
    (404, "no such element", se.NoSuchElementException, C.NOT_FOUND, False),
    (404, "stale element reference", se.StaleElementReferenceException, C.NOT_FOUND, False),
    (404, "no such window", se.NoSuchWindowException, C.NOT_FOUND, False),
    (400, "element click intercepted", se.ElementClickInterceptedException, C.INVALID_INPUT, False),
    (400, "element not interactable", se.ElementNotInteractableException, C.INVALID_INPUT, False),
    (400, "invalid selector", se.InvalidSelectorException, C.INVALID_INPUT, False),
    (400, "invalid argument", se.InvalidArgumentException, C.INVALID_INPUT, False),
    # the page's certificate is not trusted: as certificate verification failing
    (400, "insecure certificate", se.InsecureCertificateException, C.UPSTREAM_UNAVAILABLE, False),
])
def test_webdriver_error(upstream: HttpUpstream, status: int, code: str, kind: type, failure_class: C,
                         side_effect: bool) -> None:
    exc = raised(_new_session(upstream.scripted(status, _w3c_error(code))))
    assert type(exc) is kind
    result = check(exc, failure_class, side_effect)
    if code != "invalid argument":  # read by its generic words, as any library's InvalidArgument
        assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("webdriver", code)


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", urllib3.exceptions.MaxRetryError, False),
    ("unresolvable", urllib3.exceptions.MaxRetryError, False),
    ("drop", urllib3.exceptions.ProtocolError, True),
    ("stall", urllib3.exceptions.ReadTimeoutError, True),
])
def test_webdriver_endpoint_fails(upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
    exc = raised(_new_session(upstream.failing(where), SHORT))
    assert type(exc) is kind
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


# --- Playwright ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.mark.parametrize("how", ["connect", "connect_over_cdp"])
def test_browser_endpoint_refused(playwright: Playwright, how: str) -> None:
    port = closed_port()
    if how == "connect":
        exc = raised(lambda: playwright.chromium.connect(f"ws://{HOST}:{port}/", timeout=5000))
    else:
        exc = raised(lambda: playwright.chromium.connect_over_cdp(f"http://{HOST}:{port}", timeout=5000))
    assert type(exc) is PlaywrightError and "ECONNREFUSED" in exc.message
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and (result.upstream.status, result.upstream.address) == (
        "ECONNREFUSED", f"{HOST}:{port}")


def test_browser_endpoint_unresolvable(playwright: Playwright) -> None:
    exc = raised(lambda: playwright.chromium.connect(f"ws://{UNRESOLVABLE}:9222/", timeout=5000))
    assert type(exc) is PlaywrightError and "ENOTFOUND" in exc.message
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.address == UNRESOLVABLE


def test_cdp_endpoint_answers_404(playwright: Playwright, upstream: HttpUpstream) -> None:
    exc = raised(lambda: playwright.chromium.connect_over_cdp(upstream.scripted(404, "no such page"), timeout=5000))
    assert type(exc) is PlaywrightError
    result = check(exc, C.NOT_FOUND, False)
    assert result.upstream is not None and (result.upstream.status, result.upstream.address) == (
        "404", f"{HOST}:{upstream.port}")


# BrowserType.connect times out in its own connecting call (a connecting function on the stack: no browser command
# went out); connect_over_cdp's first step is an HTTP GET for the websocket URL ("retrieving websocket url from"),
# written and never answered: a timeout after sending may have been acted on, as any read timeout
@pytest.mark.parametrize(("how", "side_effect"), [("connect", False), ("connect_over_cdp", True)])
def test_browser_endpoint_never_answers(playwright: Playwright, upstream: HttpUpstream, how: str,
                                        side_effect: bool) -> None:
    url = upstream.failing("stall")
    if how == "connect":
        exc = raised(lambda: playwright.chromium.connect(url.replace("http://", "ws://"), timeout=1000))
    else:
        exc = raised(lambda: playwright.chromium.connect_over_cdp(url, timeout=1000))
    assert type(exc) is PlaywrightTimeout
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", PlaywrightError, False),
    ("drop", PlaywrightError, True),  # "read ECONNRESET": the request had gone out
    ("stall", PlaywrightTimeout, True),  # its call log shows the request written; the answer never came
])
def test_api_request_fails(playwright: Playwright, upstream: HttpUpstream, where: str, kind: type,
                           side_effect: bool | None) -> None:
    context = playwright.request.new_context()
    try:
        exc = raised(lambda: context.post(upstream.failing(where) + "/orders", data={"sku": "A1"},
                                          timeout=1000 if where == "stall" else 5000))
    finally:
        context.dispose()
    assert type(exc) is kind
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
