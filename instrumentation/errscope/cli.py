"""The ``errscope`` command.

``errscope demo [--out DIR] [--http]``
    run the refund scenario end to end on 127.0.0.1 and print the triage table.
``errscope explain QUERY --from DIR``
    print the chain for one error ref, JSON-RPC request id or trace id, from OTLP-JSON files.

Errors are one line on stderr and a non-zero exit status (1: nothing found / the demo failed its
check, 2: bad input), never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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
        console.print(f"Telemetry and triage.json in {args.out}; try: errscope explain {example} --from {args.out}",
                      highlight=False)
        console.print(result.summary, style=style, highlight=False)
    else:
        print(result.summary)
    return 0 if result.exactly_once else EXIT_FAILED


def _explain(args: argparse.Namespace) -> int:
    from errscope._explain import ExplainError, find_chains, render
    from errscope._otlp_json import TelemetryError, load

    try:
        telemetry = load(args.source)
    except TelemetryError as exc:
        print(f"errscope explain: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        chains = find_chains(telemetry, args.query)
    except ExplainError as exc:
        print(f"errscope explain: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print("\n\n".join(render(chain) for chain in chains))
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 50:
        raise argparse.ArgumentTypeError("must be between 1 and 50")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errscope", description="Error architecture and observability for MCP tool calls.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="run the refund scenario end to end and print the triage table")
    demo.add_argument("--out", type=Path, default=Path("errscope-out"),
                      help="folder for OTLP-JSON files and triage.json (default: ./errscope-out)")
    demo.add_argument("--http", action="store_true", help="serve the MCP server over streamable HTTP instead of stdio")
    demo.add_argument("--rounds", type=_positive, default=1, metavar="N",
                      help="walk the script N times on the same processes (steady traffic for a stack)")
    demo.set_defaults(run=_demo)

    explain = commands.add_parser("explain", help="from an error ref to the upstream event")
    explain.add_argument("query", metavar="REF", help="error ref (ERR-XXXXXXXX), JSON-RPC request id or trace id")
    explain.add_argument("--from", dest="source", type=Path, required=True, metavar="DIR",
                         help="the demo's output folder or a Collector file-exporter folder")
    explain.set_defaults(run=_explain)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``errscope`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print(f"errscope {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
