"""youtube-transcript-api (the transcript fetcher many MCP servers wrap) against a real HTTP server on 127.0.0.1 that
answers as YouTube's watch page and InnerTube player endpoint do.

The library reads the watch page for ``INNERTUBE_API_KEY``, posts to ``/youtubei/v1/player`` and reads its
``playabilityStatus`` and caption tracks; it raises one ``CouldNotRetrieveTranscript`` subclass per cause, with the
video id and a cause text, no status: ``VideoUnavailable`` (a video that is not there: not an outage, whatever its
name says), ``InvalidVideoId`` (a URL given for the id), ``AgeRestricted``, ``RequestBlocked``/``IpBlocked`` (bot
detection, a 429, a reCAPTCHA page), ``TranscriptsDisabled``, ``NoTranscriptFound`` (no track in the languages
asked), ``TranslationLanguageNotAvailable``, ``YouTubeRequestFailed`` (another HTTP error, over requests'
``HTTPError``). The library builds ``https://www.youtube.com/...`` itself; the session it is given carries an
adapter that sends each request to the local server (the only stand-in: library, requests and server are real).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

yta = pytest.importorskip("youtube_transcript_api")

import requests  # noqa: E402
from requests.adapters import HTTPAdapter  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port  # noqa: E402

WATCH_PAGE = '<html><script>ytcfg.set({"INNERTUBE_API_KEY": "AIzaTestKey"});</script></html>'
CAPTIONS = {"playerCaptionsTracklistRenderer": {"captionTracks": [
    {"baseUrl": "https://www.youtube.com/api/timedtext?v=VIDEO&lang=en", "name": {"runs": [{"text": "English"}]}, "languageCode": "en",
     "isTranslatable": True}],
    "translationLanguages": [{"languageCode": "de", "languageName": {"runs": [{"text": "German"}]}}]}}

# video id -> what the player endpoint answers (or how the watch page fails)
PLAYER: dict[str, Any] = {
    "unavailable0": {"playabilityStatus": {"status": "ERROR", "reason": "This video is unavailable"}},
    "agerestrict": {"playabilityStatus": {"status": "LOGIN_REQUIRED",
                                          "reason": "This video may be inappropriate for some users."}},
    "botdetected": {"playabilityStatus": {"status": "LOGIN_REQUIRED", "reason": "Sign in to confirm you\u2019re not a bot"}},
    "nocaptions0": {"playabilityStatus": {"status": "OK"}},
    "withcaption": {"playabilityStatus": {"status": "OK"}, "captions": CAPTIONS},
}


class _YouTube(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: str, content_type: str = "text/html") -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        video = parse_qs(url.query).get("v", [""])[0]
        if url.path == "/api/timedtext":
            self._send(404, "")  # the track's own URL gone
        elif video == "throttled00":
            self._send(429, "<html>Too many requests</html>")
        elif video == "recaptcha00":
            self._send(200, '<html><form><div class="g-recaptcha" data-sitekey="x"></div></form></html>')
        elif video.startswith("status"):
            self._send(int(video[len("status"):len("status") + 3]), "<html>error</html>")
        else:
            self._send(200, WATCH_PAGE)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length", "0"))
        video = json.loads(self.rfile.read(length) or b"{}").get("videoId", "")
        answer = PLAYER.get(video, PLAYER["unavailable0"] if video.startswith("http") else None)
        self._send(200 if answer is not None else 500, json.dumps(answer or {}), "application/json")


class _ToLocal(HTTPAdapter):
    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        request.url = f"{self.base}/{str(request.url).split('/', 3)[3]}"
        return super().send(request, **kwargs)


@pytest.fixture(scope="module")
def youtube() -> Iterator[str]:
    server = ThreadingHTTPServer((HOST, 0), _YouTube)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://{HOST}:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _api(base: str) -> Any:
    session = requests.Session()
    session.mount("https://", _ToLocal(base))
    return yta.YouTubeTranscriptApi(http_client=session)


@pytest.mark.parametrize(("video", "exc_name", "failure_class"), [
    ("unavailable0", "VideoUnavailable", C.NOT_FOUND),  # removed, or never there
    ("https://www.youtube.com/watch?v=unavailable0", "InvalidVideoId", C.INVALID_INPUT),  # a URL for the id
    ("agerestrict", "AgeRestricted", C.PERMISSION_DENIED),  # needs a signed-in, age-verified account
    ("botdetected", "RequestBlocked", C.RATE_LIMITED),  # YouTube's bot detection of this IP
    ("throttled00", "IpBlocked", C.RATE_LIMITED),  # a 429 on the watch page
    ("recaptcha00", "IpBlocked", C.RATE_LIMITED),  # a reCAPTCHA page in place of the watch page
    ("nocaptions0", "TranscriptsDisabled", C.NOT_FOUND),  # the video has no transcript
])
def test_could_not_retrieve(youtube: str, video: str, exc_name: str, failure_class: C) -> None:
    exc = raised(lambda: _api(youtube).fetch(video))
    assert isinstance(exc, yta.CouldNotRetrieveTranscript) and type(exc).__name__ == exc_name
    check(exc, failure_class, False)


def test_no_transcript_in_the_languages_asked(youtube: str) -> None:
    exc = raised(lambda: _api(youtube).fetch("withcaption", languages=["ja", "ko"]))
    assert isinstance(exc, yta.NoTranscriptFound)
    check(exc, C.NOT_FOUND, False)


def test_translation_language_not_available(youtube: str) -> None:
    transcript = _api(youtube).list("withcaption").find_transcript(["en"])
    exc = raised(lambda: transcript.translate("xx"))
    assert isinstance(exc, yta.TranslationLanguageNotAvailable)
    check(exc, C.NOT_FOUND, False)


def test_track_url_gone(youtube: str) -> None:
    # the track is listed, its own URL answers 404: requests' HTTPError under YouTubeRequestFailed
    exc = raised(lambda: _api(youtube).fetch("withcaption"))
    assert isinstance(exc, yta.YouTubeRequestFailed)
    result = check(exc, C.NOT_FOUND, False)
    assert result.upstream is not None and result.upstream.status == "404"


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (403, C.PERMISSION_DENIED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_watch_page_status(youtube: str, status: int, failure_class: C, side_effect: bool) -> None:
    exc = raised(lambda: _api(youtube).fetch(f"status{status}xx"))
    assert isinstance(exc, yta.YouTubeRequestFailed)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


def test_unreachable() -> None:
    exc = raised(lambda: _api(f"http://{HOST}:{closed_port()}").fetch("unavailable0"))
    assert isinstance(exc, requests.ConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
