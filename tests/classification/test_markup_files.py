"""The parsers of structured text files a tool reads (lxml, PyYAML, the standard library's ``tomllib`` and ``json``)
on real files the call names that do not parse, and lxml on a missing one.

lxml's ``XMLSyntaxError``, PyYAML's ``ScannerError``/``ParserError`` (its ``MarkedYAMLError`` family) and
``tomllib.TOMLDecodeError`` are each format's own syntax refusal: the file the call pointed at is not the format's
text, and a fixed one would parse: ``invalid_input``, nothing done. ``json.JSONDecodeError`` is the exception: the
standard library's decoder is what a tool runs on any text at all, an upstream's answer as often as a file
(tests/heldout_cases.md J186), so outside an HTTP client's ``Response.json()`` it keeps no rule: ``unknown``. A path
lxml cannot open is its ``OSError`` subclass with the text "Error reading file ...: failed to load external entity":
no errno; a known gap.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

etree = pytest.importorskip("lxml.etree")
yaml = pytest.importorskip("yaml")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("markup")
    (root / "feed.xml").write_text("<feed><entry><title>Refunds</entry></feed>")
    (root / "compose.yaml").write_text("services:\n  web:\n    ports: [8080\n  db: image: postgres\n")
    (root / "tabs.yaml").write_text("services:\n\tweb: {}\n")
    (root / "pyproject.toml").write_bytes(b"[project]\nname = = \"refunds\"\n")
    (root / "settings.json").write_text('{"currency": "EUR",}')
    return root


def _load_yaml(path: Path) -> Any:
    with path.open() as stream:
        return yaml.safe_load(stream)


def _load_toml(path: Path) -> Any:
    with path.open("rb") as stream:
        return tomllib.load(stream)


def _load_json(path: Path) -> Any:
    with path.open() as stream:
        return json.load(stream)


CALLS: dict[str, Callable[[Path], Any]] = {
    "xml_tags_crossed": lambda root: etree.parse(str(root / "feed.xml")),
    "xml_text_crossed": lambda root: etree.fromstring((root / "feed.xml").read_bytes()),
    "xml_missing": lambda root: etree.parse(str(root / "sitemap.xml")),
    "yaml_unclosed_flow": lambda root: _load_yaml(root / "compose.yaml"),
    "yaml_tab_indent": lambda root: _load_yaml(root / "tabs.yaml"),
    "toml_double_equals": lambda root: _load_toml(root / "pyproject.toml"),
    "json_trailing_comma": lambda root: _load_json(root / "settings.json"),
}


@pytest.mark.parametrize(("call", "exc_name", "failure_class", "side_effect"), [
    ("xml_tags_crossed", "XMLSyntaxError", C.INVALID_INPUT, False),
    ("xml_text_crossed", "XMLSyntaxError", C.INVALID_INPUT, False),
    # lxml's bare OSError("Error reading file ...: failed to load external entity"), no errno: libxml2's words
    ("xml_missing", "OSError", C.NOT_FOUND, False),
    ("yaml_unclosed_flow", "ParserError", C.INVALID_INPUT, False),
    ("yaml_tab_indent", "ScannerError", C.INVALID_INPUT, False),
    ("toml_double_equals", "TOMLDecodeError", C.INVALID_INPUT, False),
    ("json_trailing_comma", "JSONDecodeError", C.UNKNOWN, None),
])
def test_parse_refused(files: Path, call: str, exc_name: str, failure_class: C, side_effect: bool | None) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, failure_class, side_effect)
