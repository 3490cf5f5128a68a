"""``gryph suggest SOURCE... [-o suite.dq]``: a suite proposed from a profile of each source."""

from __future__ import annotations

import argparse
import os
import sys

from ..outputs.visible_text import for_terminal
from ..results.output_files import check_writable_path, write_whole
from . import options


def add_suggest_options(command: argparse.ArgumentParser) -> None:
    """The options of ``gryph suggest``; the engine's are named as ``run`` names them."""
    command.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a data file, a folder of them, a Griffin job config, or a source as a suite declares it: "
        'postgres("postgresql://...", table = "public.t")',
    )
    command.add_argument("-o", "--output", metavar="PATH", help="write the suite here (default: stdout)")
    options.engine(command, "the profile runs")
    command.set_defaults(memory_limit=None, temp_directory=None, env=None, read_per_scan=False)


def run_suggest_command(args: argparse.Namespace, engine) -> int:
    """Profile the sources on ``engine`` and write the suggested suite."""
    from pathlib import Path

    from ..suggestions import duckdb_file, suggest

    if args.output is not None:
        check_writable_path("--output", args.output)  # before the scan
    text = suggest(args.sources, engine, remote=args.remote, output=args.output)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    write_whole(text, args.output)
    found = duckdb_file(args.sources, Path.cwd())
    database = args.database or (os.path.relpath(found) if found is not None else None)
    command = f"gryph run {args.output}" + (f" --database {database}" if database is not None else "")
    print(for_terminal(f"wrote {args.output}: run it with {command}"), file=sys.stderr)
    return 0
