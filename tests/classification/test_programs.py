"""File tools that drive a program (the way MCP servers wrap ffmpeg, pandoc, ImageMagick, tar, unzip, jq, sqlite3):
``subprocess.run`` with ``check=True`` and the output captured, against real programs failing on real files.

A program that is not installed (ffmpeg, pandoc on a machine without them), or not executable, never started: as any
``FileNotFoundError``/``PermissionError`` out of ``subprocess``, ``upstream_unavailable``, nothing done; through a
shell the same is its status 127 (POSIX §2.8.2). One killed at its timeout (``TimeoutExpired``) was running:
``upstream_unavailable``, it may have acted. One that exited with an error status (``CalledProcessError``) says what
failed in its own words on stderr, read as a relayed text: a file it could not find (``not_found``), a file it may not
read or a filesystem that refuses writes (``permission_denied``), a file that is not its format or a directory where it
needs a file (``invalid_input``), a full disk (``unknown``, J189); whether it did part of its work first the status
does not say (``None``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised

NOBODY = 65534


def _run(*argv: str | Path, cwd: Path | None = None, **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(arg) for arg in argv], check=True, capture_output=True, text=True, cwd=cwd, timeout=30,
                          **options)


def _needs(*programs: str) -> None:
    missing = [program for program in programs if shutil.which(program) is None]
    if missing:
        pytest.skip(f"not installed here: {', '.join(missing)}")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("programs")
    (root / "notes.txt").write_text("refund 17: 20.00\n")
    (root / "orders.json").write_text('{"id": 17 "amount": 20.00}\n')
    (root / "exports").mkdir()
    (root / "private.txt").write_text("salary data\n")
    (root / "private.txt").chmod(0o600)
    (root / "convert.sh").write_text("#!/bin/sh\necho converted\n")
    (root / "convert.sh").chmod(0o644)  # not executable, even for root (execve(2) needs an execute bit)
    root.chmod(0o755)
    return root


def _as_nobody() -> dict[str, Any]:
    return {"user": NOBODY} if os.geteuid() == 0 else {}


CALLS: dict[str, tuple[tuple[str, ...], Callable[[Path], Any]]] = {
    "cat_missing": (("cat",), lambda root: _run("cat", root / "refunds-2025.txt")),
    "tar_missing": (("tar",), lambda root: _run("tar", "-xf", root / "backup.tar", "-C", root / "exports")),
    "cat_private": (("cat",), lambda root: _run("cat", root / "private.txt", **_as_nobody())),
    "tar_of_text": (("tar",), lambda root: _run("tar", "-xf", root / "notes.txt", "-C", root / "exports")),
    "gzip_of_text": (("gzip",), lambda root: _run("gzip", "-dc", root / "notes.txt")),
    "unzip_of_text": (("unzip",), lambda root: _run("unzip", "-o", root / "notes.txt", "-d", root / "exports")),
    "jq_of_broken_json": (("jq",), lambda root: _run("jq", ".amount", root / "orders.json")),
    "sqlite3_of_text": (("sqlite3",), lambda root: _run("sqlite3", root / "notes.txt", "select count(*) from orders")),
    "cat_a_directory": (("cat",), lambda root: _run("cat", root / "exports")),
    "tar_onto_full_disk": (("tar",), lambda root: _run("tar", "-cf", "/dev/full", "notes.txt", cwd=root)),
}


@pytest.mark.parametrize(("call", "failure_class"), [
    ("cat_missing", C.NOT_FOUND),
    ("tar_missing", C.NOT_FOUND),
    ("cat_private", C.PERMISSION_DENIED),
    ("tar_of_text", C.INVALID_INPUT),
    ("gzip_of_text", C.INVALID_INPUT),
    ("unzip_of_text", C.INVALID_INPUT),
    ("jq_of_broken_json", C.INVALID_INPUT),
    ("sqlite3_of_text", C.INVALID_INPUT),
    ("cat_a_directory", C.INVALID_INPUT),
    ("tar_onto_full_disk", C.UNKNOWN),
])
def test_program_exited_with_error(files: Path, call: str, failure_class: C) -> None:
    programs, action = CALLS[call]
    _needs(*programs)
    exc = raised(lambda: action(files))
    assert isinstance(exc, subprocess.CalledProcessError) and exc.returncode > 0 and exc.stderr, repr(exc)
    check(exc, failure_class, None)


@pytest.mark.parametrize("program", ["ffmpeg", "pandoc", "magick"])
def test_program_not_installed(tmp_path: Path, program: str) -> None:
    if shutil.which(program) is not None:
        pytest.skip(f"{program} is installed here")
    exc = raised(lambda: _run(program, "--version", cwd=tmp_path))
    assert type(exc) is FileNotFoundError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_program_not_installed_through_a_shell(tmp_path: Path) -> None:
    if shutil.which("pandoc") is not None:
        pytest.skip("pandoc is installed here")
    exc = raised(lambda: subprocess.run("pandoc notes.md -o notes.pdf", shell=True, check=True, capture_output=True,
                                        cwd=tmp_path))
    assert isinstance(exc, subprocess.CalledProcessError) and exc.returncode == 127
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_program_not_executable(files: Path) -> None:
    exc = raised(lambda: _run(files / "convert.sh"))
    assert type(exc) is PermissionError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_program_killed_at_its_timeout(tmp_path: Path) -> None:
    _needs("sleep")
    exc = raised(lambda: subprocess.run(["sleep", "10"], check=True, capture_output=True, timeout=0.3))
    assert type(exc) is subprocess.TimeoutExpired
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.fixture(scope="module")
def node_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("node-fs")
    (root / "exports").mkdir()
    (root / "exports" / "2026-01.csv").write_text("id,amount\n")
    (root / "report.txt").write_text("refund 17\n")
    (root / "loop-a").symlink_to(root / "loop-b")
    (root / "loop-b").symlink_to(root / "loop-a")
    (root / "private.txt").write_text("salary data\n")
    (root / "private.txt").chmod(0o600)
    root.chmod(0o755)
    return root


# Node's fs (the runtime of the reference filesystem MCP server, @modelcontextprotocol/server-filesystem): an uncaught
# fs error prints "Error: <CODE>: <strerror>, <syscall> '<path>'" and its stack on stderr, and node exits 1. Each is
# read by its errno's words as Python's own OSError with that errno is classified (test_filesystem_paths).
NODE_CALLS: dict[str, str] = {
    "read_missing": "fs.readFileSync('report-2025.txt')",
    "read_below_a_file": "fs.readFileSync('report.txt/summary')",
    "read_symlink_loop": "fs.readFileSync('loop-a')",
    "read_a_directory": "fs.readFileSync('exports')",
    "mkdir_existing": "fs.mkdirSync('exports')",
    "rmdir_not_empty": "fs.rmdirSync('exports')",
    "name_too_long": "fs.writeFileSync('x'.repeat(300), '')",
    "read_private": "fs.readFileSync('private.txt')",
    "write_full_device": "fs.writeFileSync('/dev/full', 'id,amount')",
}


@pytest.mark.parametrize(("call", "failure_class"), [
    ("read_missing", C.NOT_FOUND),
    ("read_below_a_file", C.NOT_FOUND),
    ("read_symlink_loop", C.NOT_FOUND),
    ("read_a_directory", C.INVALID_INPUT),
    ("mkdir_existing", C.INVALID_INPUT),
    ("rmdir_not_empty", C.INVALID_INPUT),
    ("name_too_long", C.INVALID_INPUT),
    ("read_private", C.PERMISSION_DENIED),
    ("write_full_device", C.UNKNOWN),
])
def test_node_fs_error(node_tree: Path, call: str, failure_class: C) -> None:
    _needs("node")
    options = _as_nobody() if call == "read_private" else {}
    exc = raised(lambda: _run("node", "-e", f"const fs = require('fs'); {NODE_CALLS[call]}", cwd=node_tree, **options))
    assert isinstance(exc, subprocess.CalledProcessError) and "Error: E" in exc.stderr, repr(exc)
    check(exc, failure_class, None)
