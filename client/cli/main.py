"""The ``gryph`` command: its commands, each in its own module, and what every command shares:
the parser, warnings as one line, errors as the user reads them and the exit code.

Exit codes: 0 success, 1 the pass policy does not hold (or, with --strict, a warning failed),
2 invalid input (syntax, names, types, config), 3 engine or data error, 4 the run passed and its
outputs are written but it could not be stored in the history, 5 the run passed, its outputs are
written and stored, but an alert (``notify``, --notify) could not be delivered.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from gryph.compiler.error_codes import RUN_FAILED
from gryph.compiler.errors import GryphError
from gryph.compiler.griffin.known_keys import UnknownKeyWarning
from gryph.compiler.redaction import redact

from ..outputs.visible_text import for_terminal_lines
from . import options
from .argument_hints import HintingParser
from .check_commands import add_explain_options, add_validate_options, explain_command, validate_command
from .engine_choice import engine_for, load_env
from .export_command import add_export_options, export_command
from .history_commands import add_history_options, add_report_options, history_command, report_command
from .run_commands import add_backfill_options, add_run_options, backfill_command, run_command
from .spark_commands import add_spark_options, spark_command
from .stream_commands import add_stream_options, run_stream_command
from .suggest_command import add_suggest_options, run_suggest_command

if TYPE_CHECKING:
    from gryph.compiler.engine import Engine


@dataclass(frozen=True)
class Command:
    """A command: its help line, its options, and what runs it: ``run(args, engine, env)``, or
    ``run(args)`` for a command that reads the history alone (``on_engine`` False)."""

    help: str
    options: Callable[[argparse.ArgumentParser], None]
    run: Callable[..., int]
    on_engine: bool = True
    epilog: str | None = None  # examples, shown under the options by --help


COMMANDS = {
    "run": Command(
        "run a suite and report its metrics",
        add_run_options,
        run_command,
        epilog="""examples:
  gryph run orders.dq                                  on DuckDB, embedded
  gryph run orders.dq --remote sc://spark:15002        on a Spark cluster, through Spark Connect
  gryph run orders.dq --junit junit.xml --markdown summary.md --html report.html
  gryph run orders.dq --data-time 2026-11-24 --var day=2026-11-24

exit codes:
  0  the pass policy holds          1  it does not (with --strict: also a failed warning)
  2  invalid input: syntax, names, types, options
  3  an engine or data error        4  passed, but not stored in the history
  5  passed and stored, but an alert or an OpenLineage event was not delivered""",
    ),
    "backfill": Command(
        "run a suite once per data time of a range, oldest first",
        add_backfill_options,
        lambda args, engine, env: backfill_command(args, engine),
    ),
    "stream": Command(
        "run a suite's kafka and folder sources a micro-batch at a time",
        add_stream_options,
        run_stream_command,
        epilog="""examples:
  gryph stream clicks.dq                               a batch every trigger, until stopped
  gryph stream clicks.dq --available-now               what is there now, then stop
  gryph stream status clicks.dq                        where each source stands, what waits
  gryph stream reset clicks.dq --to earliest --yes     forget where the stream stands""",
    ),
    "validate": Command(
        "check names and types without scanning data",
        add_validate_options,
        lambda args, engine, env: validate_command(args, engine),
    ),
    "explain": Command(
        "print the plan as an indented tree",
        add_explain_options,
        lambda args, engine, env: explain_command(args, engine),
    ),
    "suggest": Command(
        "propose a commented suite from a profile of the data",
        add_suggest_options,
        lambda args, engine, env: run_suggest_command(args, engine),
    ),
    "history": Command("list the stored runs of a suite", add_history_options, history_command, on_engine=False),
    "report": Command(
        "an HTML report of a suite's stored runs (no data scan)", add_report_options, report_command, on_engine=False
    ),
    "export": Command(
        "write a suite as an ODCS v3.1.0 data contract", add_export_options, export_command, on_engine=False
    ),
    "spark": Command(
        "keep a local Spark Connect server running between runs, for --remote local",
        add_spark_options,
        spark_command,
        on_engine=False,
        epilog="""examples:
  gryph spark start                                    start it (once; connectors fetched on first use)
  gryph run users.dq --remote local                    runs on it, in seconds
  gryph spark status                                   exit 0 while it runs, 1 when none does
  gryph spark stop""",
    ),
}


def _parser() -> argparse.ArgumentParser:
    parser = HintingParser(
        prog="gryph", description="Data-quality rules in the Griffin DSL, on DuckDB or Spark Connect."
    )
    parser.add_argument("--version", action=_Version, help="print gryph's version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        sub = commands.add_parser(
            name, help=command.help, epilog=command.epilog, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        command.options(sub)
        options.debug(sub)
    return parser


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked (importlib.metadata
    costs a run's startup some 50 ms)."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import version

        print(f"gryph {version('gryph')}")
        parser.exit()


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line for the user, not as a source location inside gryph or PySpark."""
    print(for_terminal_lines(f"warning: {redact(str(message))}"), file=sys.stderr if file is None else file)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # PySpark's note that it gave up retrying, also from its threads after a run ends: gryph's
    # error says what failed and why
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")
    with warnings.catch_warnings():  # restores the caller's way of showing warnings (tests call main)
        warnings.showwarning = _show_warning
        if getattr(args, "strict", False):
            warnings.simplefilter("error", UnknownKeyWarning)  # raised where it is found: see _command
        return _command(args)


def entry() -> NoReturn:
    """The ``gryph`` command: ``main``, then the process ends at once with its exit code.

    Everything the command opened is closed and its output written by the time ``main``
    returns. Python's own exit would then run libraries' exit handlers and join their threads:
    PySpark's send cleanup requests to the server, which have no deadline, so a server that
    crashed mid-run (or a port something else took since) could hold a gate's exit code back
    for good; it would also collect every object the process made, for memory the OS takes
    back anyway. Tests and callers call ``main``, which leaves the process alone.
    """
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _command(args: argparse.Namespace) -> int:
    engine: Engine | str | None = None
    try:
        command = COMMANDS[args.command]
        if not command.on_engine:
            return command.run(args)
        env = load_env(getattr(args, "env", None))
        engine = engine_for(args, env)
        return command.run(args, engine, env)
    except (GryphError, UnknownKeyWarning) as raised:
        error = raised.error if isinstance(raised, UnknownKeyWarning) else raised  # --strict
        # escaped here, where it is printed: the error keeps the text it quotes as it was
        print(for_terminal_lines(str(error)), file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # a bug in gryph: say so plainly, traceback only on request
        if getattr(args, "debug", False):  # the traceback, less any secret its messages quote
            print(redact("".join(traceback.format_exception(error))), file=sys.stderr, end="")
            return RUN_FAILED
        internal = f"internal error: {type(error).__name__}: {redact(str(error))} (run again with --debug for details)"
        print(for_terminal_lines(internal), file=sys.stderr)
        return RUN_FAILED
    finally:
        if engine is not None and not isinstance(engine, str):
            engine.close()


if __name__ == "__main__":
    entry()
