"""The ``gryph`` command: run, validate and explain suites and Griffin job configs.

Exit codes: 0 success, 2 invalid input (syntax, names, types, config), 3 engine or data error.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from gryph.compiler.errors import GryphError

from . import runner
from .engines import ENGINES
from .report import to_json, to_text

EXIT_OK, EXIT_INVALID, EXIT_ENGINE = 0, 2, 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gryph", description="Data-quality rules in the Griffin DSL, "
                                     "on DuckDB or Spark Connect.")
    commands = parser.add_subparsers(dest="command", required=True)

    def engine_options(command):
        command.add_argument("file", help="a native suite (.dq) or a Griffin job config (.json)")
        command.add_argument("--engine", choices=ENGINES, default=None,
                             help="where rules run (default: duckdb, or spark when --remote is given)")
        command.add_argument("--remote", help="Spark Connect URL sc://host:port/;token=... or 'local' "
                             "(default: $SPARK_REMOTE with --engine spark)")
        command.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")

    run = commands.add_parser("run", help="run a suite and report its metrics")
    engine_options(run)
    run.add_argument("--format", choices=("text", "json"), default="text")
    run.add_argument("--output", help="write the report to this file instead of stdout")
    run.add_argument("--sample", type=int, default=20, help="rows kept per record output (0: none)")
    run.add_argument("--records-to", metavar="DEST",
                     help="write every record output in full where the engine runs: a folder "
                          "(parquet files) or table:PREFIX")
    engine_options(commands.add_parser("validate", help="check names and types without scanning data"))
    engine_options(commands.add_parser("explain", help="print the plan as an indented tree"))
    return parser


def _write(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    # write beside the target, then rename: an interrupted run never leaves half a report
    target = Path(output)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, target)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    engine = args.engine or ("spark" if args.remote else "duckdb")
    try:
        if args.command == "run":
            result = runner.run(args.file, engine, remote=args.remote, record_sample=max(args.sample, 0),
                                records_to=args.records_to)
            _write(to_json(result.to_dict()) if args.format == "json" else to_text(result), args.output)
        elif args.command == "validate":
            compiled = runner.validate(args.file, engine, remote=args.remote)
            print(f"{args.file}: ok ({len(compiled.suite.rules)} rules, "
                  f"{len(compiled.suite.sources)} sources, {len(compiled.plan.queries)} queries)")
        else:
            sys.stdout.write(runner.explain(args.file, engine, remote=args.remote))
        return EXIT_OK
    except GryphError as error:
        print(str(error), file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # a bug in gryph: say so plainly, traceback only on request
        if args.debug:
            raise
        print(f"internal error: {type(error).__name__}: {error} (run again with --debug for details)",
              file=sys.stderr)
        return EXIT_ENGINE


if __name__ == "__main__":
    sys.exit(main())
