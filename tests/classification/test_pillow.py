"""Pillow (the image library of image and screenshot MCP tools) on real files the call names: a text file named
``.png``, an image larger than Pillow's decompression-bomb limit, a PNG cut off, and no file at all.

``UnidentifiedImageError`` (an ``OSError`` with no errno) is a file no image plugin recognises, and
``DecompressionBombError`` one whose pixel count is over ``Image.MAX_IMAGE_PIXELS`` twice (a file that decompresses
to more than the tool will hold: HTTP's 413 for an argument too large): the file the call pointed at is not one the
tool can take, and another would succeed: ``invalid_input``, nothing done. A PNG cut short is Pillow's bare
``OSError("image file is truncated")``: a builtin with a text only, which could be any I/O failure; it stays a
known gap. A missing path is ``FileNotFoundError``: ``not_found``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

Image = pytest.importorskip("PIL.Image")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("images")
    (root / "screenshot.png").write_text("not an image at all\n")
    Image.new("RGB", (400, 300), "white").save(root / "poster.png")
    # cut short: the first half of an image under the pixel limit (the poster above is over it: its bomb check comes
    # first), whose pixels do not compress to nothing
    pixels = bytes((i * 7919) % 251 for i in range(120 * 120 * 3))
    Image.frombytes("RGB", (120, 120), pixels).save(root / "whole.png")
    whole = (root / "whole.png").read_bytes()
    (root / "cut.png").write_bytes(whole[: len(whole) // 2])
    return root


@pytest.fixture
def small_pixel_limit() -> Iterator[None]:
    limit = Image.MAX_IMAGE_PIXELS
    Image.MAX_IMAGE_PIXELS = 10_000  # a tool's own limit: the poster's 120,000 pixels are over twice this
    yield
    Image.MAX_IMAGE_PIXELS = limit


def _thumbnail(path: Path) -> Any:
    with Image.open(path) as image:
        image.thumbnail((64, 64))
        return image.size


CALLS: dict[str, Callable[[Path], Any]] = {
    "not_an_image": lambda root: _thumbnail(root / "screenshot.png"),
    "decompression_bomb": lambda root: _thumbnail(root / "poster.png"),
    "cut_off": lambda root: _thumbnail(root / "cut.png"),
    "missing": lambda root: _thumbnail(root / "logo.png"),
}


@pytest.mark.parametrize(("call", "exc_name", "failure_class"), [
    ("not_an_image", "UnidentifiedImageError", C.INVALID_INPUT),
    ("decompression_bomb", "DecompressionBombError", C.INVALID_INPUT),
    ("cut_off", "OSError", C.INVALID_INPUT),  # a bare OSError('image file is truncated'): Pillow's words (classify)
    ("missing", "FileNotFoundError", C.NOT_FOUND),
])
def test_open_refused(files: Path, small_pixel_limit: None, call: str, exc_name: str, failure_class: C) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, failure_class, False)
