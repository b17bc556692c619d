"""The build-foreign-*.sh scripts share one cache (``~/.cache/errscope``) between every checkout on the machine: a
build removes its own checkout's superseded builds and nothing else.

``cargo``, ``rustc`` and ``go`` are stand-ins on ``PATH`` that write an executable where the real tool would put its
output: a real build takes minutes and the network, and what is under test is the script's cache handling, which
runs the same whatever wrote the binary."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_CARGO = """#!/bin/sh
case "$1" in --version) echo "cargo 1.0.0 (stand-in)"; exit 0;; esac
mkdir -p "$CARGO_TARGET_DIR/debug"
for bin in rmcp-failing-server reqwest-probe; do printf '#!/bin/sh\\n' > "$CARGO_TARGET_DIR/debug/$bin"; chmod +x "$CARGO_TARGET_DIR/debug/$bin"; done
"""
_RUSTC = "#!/bin/sh\necho 'rustc 1.0.0 (stand-in)'\n"
_GO = """#!/bin/sh
case "$1" in env) echo go1.0 linux amd64; exit 0;; esac
while [ "$#" -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
printf '#!/bin/sh\\n' > "$out"; chmod +x "$out"
"""


def _tools(tmp_path: Path, **scripts: str) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(stat.S_IRWXU)
    cache = tmp_path / "cache"
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "ERRSCOPE_CACHE_DIR": str(cache)}


def _build(parent: Path, name: str, owner: str | None) -> Path:
    build = parent / name
    build.mkdir(parents=True)
    (build / "server").write_text("#!/bin/sh\n")
    if owner is not None:
        (build / ".owner").write_text(owner + "\n")
    return build


@pytest.mark.parametrize(("script", "tools", "kind", "name"), [
    ("build-foreign-rust.sh", {"cargo": _CARGO, "rustc": _RUSTC}, "foreign-rust", "server"),
    ("build-foreign-go.sh", {"go": _GO}, "foreign-go", "gosdk"),
])
def test_a_build_removes_only_its_own_checkouts_older_builds(
        tmp_path: Path, script: str, tools: dict[str, str], kind: str, name: str) -> None:
    env = _tools(tmp_path, **tools)
    parent = tmp_path / "cache" / kind
    other = _build(parent, f"{name}-00000000000000aa", "/work/wt/another-checkout")
    unowned = _build(parent, f"{name}-00000000000000bb", None)
    mine = _build(parent, f"{name}-00000000000000cc", str(ROOT))
    other_name = _build(parent, f"{name}x-00000000000000dd", str(ROOT))  # another server's name: not this build's

    done = subprocess.run(["bash", str(ROOT / "scripts" / script), *([name] if kind == "foreign-go" else [])],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    built = Path(done.stdout.strip())
    assert built.is_file() and built.parent.parent == parent
    assert (built.parent / ".owner").read_text().strip() == str(ROOT)
    assert other.is_dir() and unowned.is_dir() and other_name.is_dir()
    assert not mine.exists()
