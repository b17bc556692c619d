"""The ``errscope`` command.

``errscope demo [--out DIR] [--http] [--rounds N]``
    run the refund scenario end to end on 127.0.0.1 and print the triage table.
``errscope explain REF [--from DIR]``
    print the chain for one error ref, JSON-RPC request id or trace id, from OTLP-JSON files.
``errscope proxy [--out DIR] (-- COMMAND ... | --upstream URL [--listen HOST:PORT])``
    put the error architecture in front of an MCP server errscope cannot instrument (stdio to
    stdio, streamable HTTP to streamable HTTP, stdio to streamable HTTP).

Errors are one line on stderr and a non-zero exit status (1: nothing found / the demo failed its
check, 2: bad input), never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from errscope._version import __version__

__all__ = ["main"]

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def _demo(args: argparse.Namespace) -> int:
    from rich.console import Console

    from errscope.demo import triage
    from errscope.demo.run import DemoError, run_demo

    console = Console()
    try:
        result = run_demo(args.out, http=args.http, rounds=args.rounds, console=console)
    except DemoError as exc:
        print(f"errscope demo: {exc}", file=sys.stderr)
        return EXIT_FAILED
    transport = "streamable HTTP" if args.http else "stdio"
    title = f"errscope demo ({transport}): {len(result.rows)} messages the model saw, {result.seconds:.1f} s"
    triage.print_rows(console, result.rows, title)
    if console.is_terminal:
        style = "bold green" if result.exactly_once else "bold red"
        example = next((r.error_ref for r in result.rows if r.upstream_status.isdigit() and r.error_ref != "-"), "ERR-…")
        console.print(f"Telemetry and triage.json in {args.out}; try: {_as_typed(sys.argv[0])} explain {example} "
                      f"--from {args.out}", highlight=False)
        console.print(result.summary, style=style, highlight=False)
    else:
        print(result.summary)
    return 0 if result.exactly_once else EXIT_FAILED


def _as_typed(argv0: str) -> str:
    """How to run this same ``errscope`` again: ``errscope`` when the shell finds this one by that name, else the path
    it was started by (``make demo`` runs ``.venv/bin/errscope``, which is not on PATH until the venv is activated)."""
    import shlex
    import shutil

    found = shutil.which("errscope")
    here = Path(argv0)
    if here.name != "errscope" or (found is not None and Path(found).resolve() == here.resolve()):
        return "errscope"  # `python -m errscope.cli` and the like: the name the README uses
    typed = os.path.relpath(here) if here.resolve().is_relative_to(Path.cwd().resolve()) else str(here.absolute())
    return shlex.quote(typed if os.sep in typed else os.path.join(os.curdir, typed))


_WHERE_FROM = (
    "; --from takes the folder the server (or errscope proxy) and the host export OTLP-JSON files to, or their common"
    " parent (the demo's errscope-out, configure_telemetry's output_dir, errscope proxy --out, a Collector file"
    " exporter's folder such as make stack's .errscope-stack/collector)"
)


def _explain(args: argparse.Namespace) -> int:
    from errscope._explain import ExplainError, QueryError, find_chains, render
    from errscope._otlp_json import TelemetryError, load, telemetry_files

    try:
        telemetry = load(args.source)
    except TelemetryError as exc:
        # a folder that is not there, or holds no telemetry at all, is likely not the one its processes export to
        # (exists() is False, not OSError, for a path it cannot stat)
        elsewhere = not os.path.exists(args.source) or (os.path.isdir(args.source) and not telemetry_files(args.source))
        hint = _WHERE_FROM if elsewhere else ""
        print(f"errscope explain: {exc}{hint}{_sent_elsewhere()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for said in telemetry.skipped[:3]:
        print(f"errscope explain: left out {said}", file=sys.stderr)
    if len(telemetry.skipped) > 3:
        print(f"errscope explain: left out {len(telemetry.skipped) - 3} more damaged lines", file=sys.stderr)
    try:
        chains = find_chains(telemetry, args.query)
    except ExplainError as exc:
        print(f"errscope explain: {exc}{'' if isinstance(exc, QueryError) else _sent_elsewhere()}", file=sys.stderr)
        return EXIT_BAD_INPUT if isinstance(exc, QueryError) else EXIT_FAILED
    if len(chains) > 1:  # request ids repeat across sessions and runs: say so rather than pick one
        print(f"{len(chains)} calls match {args.query.strip()}; each is below.\n")
    print("\n\n".join(render(chain) for chain in chains))
    return 0


def _sent_elsewhere() -> str:
    """What to say when this shell exports to an OTLP endpoint: processes started from it sent their telemetry there
    (``configure_telemetry`` prefers the endpoint to files), not to the folder searched."""
    from errscope._setup import OTLP_VARIABLES

    name = next((name for name in OTLP_VARIABLES if os.environ.get(name)), None)
    if name is None:
        return ""
    return (f"; {name} is set here ({os.environ[name]}): processes that see it export there, not to files, so look the"
            " ref up where that endpoint leads (the triage dashboard), or give --from its Collector's file exporter folder")


def _proxy(args: argparse.Namespace) -> int:
    import gc
    import logging

    from opentelemetry import trace

    from errscope._setup import configure_telemetry, otlp_configured, write_copy
    from errscope._telemetry import ServerTelemetry
    from errscope.proxy import serve_http, serve_stdio_to_http, serve_stdio_to_stdio

    command = args.command_line[1:] if args.command_line[:1] == ["--"] else args.command_line
    if bool(command) == bool(args.upstream):
        print("errscope proxy: give either a server command after -- or --upstream URL", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.listen and command:
        print("errscope proxy: --listen serves an HTTP upstream; a stdio server is run without it", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.out is not None:
        problem = _unwritable(args.out)
        if problem:
            print(f"errscope proxy: --out {args.out}: {problem}; give a folder you can write to", file=sys.stderr)
            return EXIT_BAD_INPUT
    # stdout may be the protocol: what the proxy says goes to stderr (the failure records go to telemetry).
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("errscope proxy: %(message)s"))
    logging.getLogger("errscope.proxy").addHandler(handler)
    logging.getLogger("errscope.proxy").setLevel(logging.INFO)
    telemetry = configure_telemetry("errscope-proxy", output_dir=args.out) if otlp_configured() or args.out else None
    if telemetry is not None and args.out and otlp_configured():
        write_copy(telemetry, args.out)  # asked for by name: the files too, not OTLP alone
    if telemetry is None and isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        logging.getLogger("errscope.proxy").warning(
            "no telemetry is exported (set OTEL_EXPORTER_OTLP_ENDPOINT or give --out DIR): errors are still shaped, "
            "but their refs lead nowhere"
        )
    recorder = ServerTelemetry(capture_content=False)
    if args.listen:
        host, port = args.listen
        serve = serve_http(args.upstream, host, port, recorder)
    elif args.upstream:
        serve = serve_stdio_to_http(args.upstream, recorder)
    else:
        serve = serve_stdio_to_stdio(command, recorder)
    # What is loaded and configured by now lives as long as the process: frozen out of the collector's
    # sight, the full collections that relayed calls trigger no longer walk it (gc.freeze).
    gc.collect()
    gc.freeze()
    try:
        _event_loop_runner()(_until_terminated(serve))
    except OSError as exc:
        if not args.listen:
            raise
        # The --listen address is taken or not this machine's: said in one line, as uvicorn did.
        print(f"errscope proxy: cannot listen on {args.listen[0]}:{args.listen[1]}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        if telemetry is not None:
            telemetry.shutdown()
    return 0


def _unwritable(folder: Path) -> str:
    """Why OTLP-JSON files cannot go to ``folder`` (created when missing), or ``""``."""
    try:  # exists() too raises for a name too long or a parent it may not search
        if folder.exists() and not folder.is_dir():
            return "exists and is not a folder"
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return "" if os.access(folder, os.W_OK) else "not writable"


def _event_loop_runner() -> Any:
    """``uvloop.run`` where uvloop is installed (the ``cli`` extra, not on Windows), else ``asyncio.run``.

    uvloop's event loop and transports are C: about a tenth less CPU per relayed HTTP request
    (``python -m bench bench_proxy``).
    """
    import asyncio

    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


async def _until_terminated(serve: Any) -> None:
    """Run ``serve``; SIGTERM (how hosts stop a stdio server) cancels it so the child stops and telemetry flushes.

    Ctrl-C cancels this task itself (``asyncio.run`` does, and ``uvloop.run``): that cancellation goes on, so the
    runner raises ``KeyboardInterrupt`` and the command exits 130 as the demo does, not 0 as if the relay had ended.
    """
    import asyncio
    import signal

    task = asyncio.ensure_future(serve)
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise


def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError("must be HOST:PORT, e.g. 127.0.0.1:8808")
    return host.strip("[]"), int(port)


def _http_url(text: str) -> str:
    if not text.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError("must be an http:// or https:// URL of the server's MCP endpoint")
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number between 1 and 50, not {text!r}") from None
    if not 1 <= value <= 50:
        raise argparse.ArgumentTypeError("must be between 1 and 50")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errscope", description="Error architecture and observability for MCP tool calls.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="run the refund scenario end to end and print the triage table")
    demo.add_argument("--out", type=Path, default=Path("errscope-out"), metavar="DIR",
                      help="folder for OTLP-JSON files and triage.json, which each run replaces"
                           " (default: ./errscope-out)")
    demo.add_argument("--http", action="store_true", help="serve the MCP server over streamable HTTP instead of stdio")
    demo.add_argument("--rounds", type=_positive, default=1, metavar="N",
                      help="walk the script N times on the same processes (steady traffic for a stack)")
    demo.set_defaults(run=_demo)

    explain = commands.add_parser(
        "explain", help="from an error ref to the upstream event",
        description="Print what the model saw, the tool span, its upstream calls, the log record and the client's "
                    "attempts for one call, from OTLP-JSON files.",
        epilog="example: errscope explain 'Ref ERR-6QGQMHE5' --from errscope-out  (a ref is found inside a pasted "
               "sentence, in any case)",
    )
    explain.add_argument("query", metavar="REF", help="error ref (ERR-XXXXXXXX), JSON-RPC request id or trace id")
    explain.add_argument("--from", dest="source", type=Path, default=Path("errscope-out"), metavar="DIR",
                         help="where the OTLP-JSON files are: the demo's --out, errscope proxy --out, "
                              "configure_telemetry's output_dir or a Collector file-exporter folder (default: "
                              "./errscope-out, where the demo and configure_telemetry write)")
    explain.set_defaults(run=_explain)

    proxy = commands.add_parser(
        "proxy", help="put errscope in front of an MCP server you don't own",
        usage="errscope proxy [--out DIR] (-- COMMAND ... | --upstream URL [--listen HOST:PORT])",
        description="Put errscope in front of an MCP server you don't own. Every message is relayed as it is;\n"
                    "each tools/call is recorded (span, metric, log record) and a failure reaches the model\n"
                    "classified, scrubbed and with a ref. Without --listen the proxy is the host's stdio server.\n"
                    "Telemetry: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, OTLP-JSON files with --out.",
        epilog="examples:\n"
               "  errscope proxy --out errscope-out -- npx -y @modelcontextprotocol/server-everything\n"
               "  errscope proxy --upstream http://127.0.0.1:9000/mcp --listen 127.0.0.1:8808\n"
               "  errscope proxy --upstream https://mcp.example.com/mcp\n"
               "then: errscope explain ERR-XXXXXXXX --from errscope-out",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    proxy.add_argument("--upstream", type=_http_url, metavar="URL", help="the streamable HTTP MCP endpoint to relay to")
    proxy.add_argument("--listen", type=_host_port, metavar="HOST:PORT",
                       help="serve streamable HTTP here (the same path as the upstream's); without it, stdio")
    proxy.add_argument("--out", type=Path, metavar="DIR",
                       help="OTLP-JSON files here (with OTEL_EXPORTER_OTLP_ENDPOINT set: spans and logs, besides OTLP)")
    proxy.add_argument("command_line", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                       help="the stdio MCP server to run")
    proxy.set_defaults(run=_proxy)
    return parser


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """``argv`` parsed; a mistyped command or option exits 2 with the usage of the command it was meant for and the
    closest names (argparse alone reports an unknown option of ``explain`` with the top-level usage and no hint)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    if argv and not argv[0].startswith("-") and argv[0] not in commands:
        parser.error(f"unknown command {argv[0]!r}{_did_you_mean(argv[0], commands)} (choose from {', '.join(commands)})")
    if argv and argv[0].startswith("-") and argv[0].partition("=")[0] not in parser._option_string_actions:
        parser.error(f"unrecognized arguments: {argv[0]}{_did_you_mean(argv[0], parser._option_string_actions)}")
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        command = commands[args.command]
        hints = "".join(_did_you_mean(word.partition("=")[0], command._option_string_actions)
                        for word in unknown if word.startswith("-"))
        command.error(f"unrecognized arguments: {' '.join(unknown)}{hints}")
    return args


def _did_you_mean(word: str, names: Any) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``errscope`` command; returns the exit status."""
    from errscope._extras import MissingExtra, needs_extra

    args = _parse(argv)
    try:
        with needs_extra("this command"):
            return int(args.run(args))
    except MissingExtra as exc:  # the base install has the library only: say which extra, not a traceback
        print(f"errscope {args.command}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"errscope {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `errscope explain … | head`: the reader left; nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit flush does not fail again
        return 141


if __name__ == "__main__":
    sys.exit(main())
