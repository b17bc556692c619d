"""The ``errscope`` command's answers to mistyped input: one usage line of the command meant, the closest name, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from errscope.cli import _as_typed, main


@pytest.mark.parametrize(
    ("argv", "usage", "said"),
    [
        (["explian", "ERR-7K3M9QXZ"], "usage: errscope [", "unknown command 'explian'; did you mean explain?"),
        (["--verison"], "usage: errscope [", "unrecognized arguments: --verison; did you mean --version?"),
        (["explain", "ERR-7K3M9QXZ", "--form", "out"], "usage: errscope explain",
         "errscope explain: error: unrecognized arguments: --form out; did you mean --from?"),
        (["proxy", "--upsteam", "http://127.0.0.1:9000/mcp"], "usage: errscope proxy",
         "errscope proxy: error: unrecognized arguments: --upsteam; did you mean --upstream?"),
        (["demo", "--htp"], "usage: errscope demo", "errscope demo: error: unrecognized arguments: --htp; did you mean --http?"),
        (["explain", "ERR-7K3M9QXZ", "extra"], "usage: errscope explain", "errscope explain: error: unrecognized arguments: extra"),
    ],
)
def test_mistyped_input_names_the_command_and_the_closest_name(
    argv: list[str], usage: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The usage is the command's own (argparse gave the top-level usage for a subcommand's unknown option)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage), err
    assert said in err, err


def test_arguments_after_the_separator_are_the_servers(capsys: pytest.CaptureFixture[str]) -> None:
    """``errscope proxy -- server --form x``: what follows ``--`` is the server's command line, never checked here;
    ``--listen`` with a server command is refused with what to do instead."""
    assert main(["proxy", "--listen", "127.0.0.1:8808", "--", "server", "--form", "x"]) == 2
    assert "a stdio server is run without it" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["proxy", "demo"])
@pytest.mark.parametrize("where", ["a_file", "under_a_file", "name_too_long"])
def test_out_that_cannot_be_a_folder_is_one_line(
    command: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out`` naming a file, or a folder under one: one line saying what to give, no traceback (``mkdir`` raised
    FileExistsError/NotADirectoryError out of the proxy's telemetry set-up and the demo's preparation; a name longer
    than NAME_MAX made the ``exists()`` before it raise ENAMETOOLONG)."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = {"a_file": blocker, "under_a_file": blocker / "out", "name_too_long": tmp_path / ("o" * 300)}[where]
    argv = ["proxy", "--out", str(out), "--", "cat"] if command == "proxy" else ["demo", "--out", str(out)]
    assert main(argv) == (2 if command == "proxy" else 1)
    err = capsys.readouterr().err
    assert err.startswith(f"errscope {command}: ") and err.count("\n") == 1, err
    assert str(out) in err and "folder" in err
    assert blocker.read_text() == ""


def test_from_that_cannot_be_read_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``explain --from`` a path whose stat fails (a name longer than NAME_MAX; EACCES alike): one line with the OS's
    reason and where ``--from`` should point, exit 2 (``Path.exists()`` raised ENAMETOOLONG as a traceback)."""
    source = tmp_path / ("o" * 300)
    assert main(["explain", "ERR-7K3M9QXZ", "--from", str(source)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"errscope explain: {source} cannot be read (File name too long); --from takes the folder"), err


def test_rounds_that_is_not_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    """argparse named the private converter (``invalid _positive value``)."""
    with pytest.raises(SystemExit):
        main(["demo", "--rounds", "many"])
    assert "argument --rounds: must be a whole number between 1 and 50, not 'many'" in capsys.readouterr().err


def test_every_folder_option_is_spelled_dir(capsys: pytest.CaptureFixture[str]) -> None:
    """``--out`` of demo and proxy and ``--from`` of explain all show ``DIR`` in their usage (demo said ``OUT``)."""
    for command, option in (("demo", "--out"), ("proxy", "--out"), ("explain", "--from")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert f"[{option} DIR]" in capsys.readouterr().out, command


def test_the_demos_hint_names_the_command_as_it_can_be_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's "try: … explain" line names ``errscope`` when the shell finds this one by that name, else the path it
    was started by (``make demo`` runs ``.venv/bin/errscope``, not on PATH until the venv is activated)."""
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    command = venv_bin / "errscope"
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert _as_typed(".venv/bin/errscope") == ".venv/bin/errscope"
    assert _as_typed(str(command)) == ".venv/bin/errscope"
    monkeypatch.chdir(venv_bin)
    assert _as_typed("errscope") == "./errscope"
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert _as_typed(str(command)) == str(command)
    monkeypatch.setenv("PATH", str(venv_bin))
    assert _as_typed(str(command)) == "errscope"
    assert _as_typed("/usr/lib/python3.11/site-packages/errscope/cli.py") == "errscope"


def test_proxy_and_explain_help_describe_the_command_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    """``errscope proxy --help`` and ``errscope explain --help`` say what the command does and show a command line to
    start from (proxy's help had the options alone)."""
    for command, example in (("proxy", "errscope proxy --upstream http://127.0.0.1:9000/mcp --listen 127.0.0.1:8808"),
                             ("explain", "errscope explain 'Ref ERR-6QGQMHE5' --from errscope-out")):
        with pytest.raises(SystemExit) as exited:
            main([command, "--help"])
        assert exited.value.code == 0
        said = " ".join(capsys.readouterr().out.split())
        assert example in said
        assert said.count(f"errscope {command} ") >= 2  # the usage line and the example
