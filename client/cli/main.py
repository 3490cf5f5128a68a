"""The ``gryph`` command: run, validate and explain suites and Griffin job configs; list history.

Exit codes: 0 success, 1 the pass policy does not hold (or, with --strict, a warning failed),
2 invalid input (syntax, names, types, config), 3 engine or data error, 4 the run passed and its
outputs are written but it could not be stored in the history, 5 the run passed, its outputs are
written and stored, but an alert (``notify``, --notify) could not be delivered.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from gryph.compiler.errors import EngineError, GryphError, InvalidInput, Location, closest
from gryph.compiler.griffin.known_keys import UnknownKeyWarning
from gryph.compiler.redaction import redact
from gryph.compiler.suites.data_times import data_time_range
from gryph.compiler.suites.data_times import shown as shown_data_time
from gryph.compiler.suites.suite_variables import parse_assignment

from .. import validate
from ..alerts.run_alerts import add_notify_option, alert_targets, send_alerts, warn_not_sent
from ..griffin.sinks import resolve_sinks, write_sinks
from ..outputs.gate import gate_passes, to_junit, to_markdown
from ..outputs.text import cell, metrics_summary, table, to_text
from ..outputs.visible_text import for_terminal, for_terminal_lines
from ..results.output_files import check_writable_path, write_whole
from ..results.run_result import to_json
from ..run import runner
from ..run.engines import ENGINES, open_engine, open_spark
from ..run.progress import shows_progress, terminal_progress
from ..store.history import DEFAULT_PATH, HistoryStore, HistoryWriteError
from .argument_hints import HintingParser
from .stream import add_stream_options, run_stream_command
from .suggest import add_suggest_options, run_suggest_command

if TYPE_CHECKING:  # Griffin's env.json reader loads only when --env names one
    from gryph.compiler.engine import Engine

    from ..griffin.env import GriffinEnv

EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_ENGINE = 0, 1, 2, 3
REPORT_RUNS = 30  # runs in a report's trends: the proposal's "previous 30 runs"


def _parser() -> argparse.ArgumentParser:
    parser = HintingParser(
        prog="gryph", description="Data-quality rules in the Griffin DSL, on DuckDB or Spark Connect."
    )
    parser.add_argument("--version", action=_Version, help="print gryph's version and exit")
    commands = parser.add_subparsers(dest="command", required=True)

    def engine_options(command):
        command.add_argument("file", help="a native suite (.dq) or a Griffin job config (.json)")
        command.add_argument(
            "--engine",
            choices=ENGINES,
            default=None,
            help="where rules run (default: duckdb, or spark when --remote is given)",
        )
        command.add_argument(
            "--remote",
            help="Spark Connect URL sc://host:port/;token=... or 'local' (default: $SPARK_REMOTE with --engine spark)",
        )
        command.add_argument(
            "--database",
            metavar="PATH",
            help='a DuckDB database file whose tables table("...") sources and hive connectors read (duckdb engine)',
        )
        command.add_argument(
            "--memory-limit",
            metavar="SIZE",
            help="duckdb: the most memory DuckDB may take, e.g. 8GB; larger work spills to disk",
        )
        command.add_argument(
            "--temp-directory",
            metavar="PATH",
            help="duckdb: where work beyond --memory-limit spills (default: .tmp in the current folder)",
        )
        command.add_argument(
            "--env", metavar="PATH", help="a Griffin env.json: its spark.config settings go to the Spark session"
        )
        command.add_argument(
            "--read-per-scan",
            action="store_true",
            help="spark: read a source once per query that scans it, instead of once "
            "per run into the cluster's storage (for sources too large to keep)",
        )
        command.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")

    run = commands.add_parser("run", help="run a suite and report its metrics")
    engine_options(run)
    run.add_argument("--format", choices=("text", "json"), default="text")
    run.add_argument("--output", help="write the report to this file instead of stdout")
    run.add_argument("--sample", type=int, default=20, help="rows kept per record output (0: none)")
    run.add_argument(
        "--records-to",
        metavar="DEST",
        help="write every record output in full where the engine runs: a folder (parquet files) or table:PREFIX",
    )
    history_option(run)
    run.add_argument("--no-history", action="store_true", help="neither read nor store run history")
    run.add_argument("--junit", metavar="PATH", help="write JUnit XML, one testcase per check")
    run.add_argument("--markdown", metavar="PATH", help="write a Markdown summary (for a CI job page)")
    run.add_argument(
        "--strict",
        action="store_true",
        help="a failed warning check fails the run (exit 1); a Griffin config key Griffin does not know is an error",
    )
    report_options(run, "the run", ("--html",))
    add_notify_option(run)
    run.add_argument("--quiet", action="store_true", help="no progress display on the terminal")
    data_time_options(run)
    backfill = commands.add_parser("backfill", help="run a suite once per data time of a range, oldest first")
    engine_options(backfill)
    history_option(backfill)
    backfill.add_argument("--from", dest="start", required=True, metavar="TIME", help="the first data time")
    backfill.add_argument("--to", dest="end", required=True, metavar="TIME", help="the last data time (included)")
    backfill.add_argument("--step", default="1d", help="between data times: 1d (default), 6h, 30m ...")
    backfill.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a value for ${NAME} in the suite; {data_time} in VALUE is each run's data time (repeatable)",
    )
    backfill.add_argument("--format", choices=("text", "json"), default="text")
    add_notify_option(backfill)
    stream = commands.add_parser("stream", help="run a suite's kafka and folder sources a micro-batch at a time")
    engine_options(stream)
    add_stream_options(stream)
    validate = commands.add_parser("validate", help="check names and types without scanning data")
    engine_options(validate)
    validate.add_argument(
        "--strict", action="store_true", help="a Griffin config key Griffin does not know is an error"
    )
    engine_options(commands.add_parser("explain", help="print the plan as an indented tree"))
    add_suggest_options(commands.add_parser("suggest", help="propose a commented suite from a profile of the data"))
    history = commands.add_parser("history", help="list the stored runs of a suite")
    history.add_argument("suite", help="the suite's name")
    history.add_argument("--measure", help="list this measure's values only")
    history_option(history)
    history.add_argument("--limit", type=int, default=50, help="newest runs shown (default 50)")
    history.add_argument("--format", choices=("text", "json"), default="text")
    history.add_argument("--all", action="store_true", help="also the runs a rerun of their data time replaced")
    report = commands.add_parser("report", help="an HTML report of a suite's stored runs (no data scan)")
    report.add_argument("suite", help="the suite's name")
    history_option(report)
    report.add_argument(
        "--runs", type=_positive, default=REPORT_RUNS, help=f"newest runs in the trend charts (default {REPORT_RUNS})"
    )
    report_options(report, "the newest run", ("-o", "--html"))
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


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs, at least 1, got {text!r}")
    return int(text)


def data_time_options(command) -> None:
    command.add_argument(
        "--var", action="append", default=[], metavar="NAME=VALUE", help="a value for ${NAME} in the suite (repeatable)"
    )
    command.add_argument(
        "--data-time",
        metavar="TIME",
        help="the moment the data is about (2026-11-24): keys the run in the history; a rerun replaces it",
    )


def _variables(assignments: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for text in assignments:
        name, value = parse_assignment(text)
        values[name] = value
    return values


def report_options(command, what: str, names: tuple[str, ...]) -> None:
    command.add_argument(
        *names,
        dest="html",
        metavar="PATH",
        help=f"write an HTML report of {what}, with charts and trends (one offline file)",
    )
    command.add_argument("--png", metavar="DIR", help="write each chart of the report as a PNG file here")
    command.add_argument("--svg", metavar="DIR", help="write each chart of the report as an SVG file here")


def history_option(command) -> None:
    command.add_argument(
        "--history",
        metavar="PATH",
        default=str(DEFAULT_PATH),
        help=f"the run history, an embedded DuckDB file (default {DEFAULT_PATH})",
    )


def _write(text: str, output: str | None) -> None:
    text = redact(text)  # a report in text, JSON, JUnit or Markdown shows no secret
    if output is None:
        sys.stdout.write(text)
    else:
        write_whole(text, output)


def _check_outputs(args: argparse.Namespace, engine: Engine | str) -> None:
    """Every output path the run will write, refused before the run when it can never be written."""
    for option, path in (("--output", args.output), ("--junit", args.junit), ("--markdown", args.markdown)):
        if path is not None:
            check_writable_path(option, path)
    _check_report_outputs(args)
    records_to = args.records_to
    # on Spark the server writes records, to its own file system: only a local one is checked here
    if (
        records_to
        and not records_to.startswith("table:")
        and "://" not in records_to
        and getattr(engine, "name", engine) == "duckdb"
    ):
        check_writable_path("--records-to", records_to, folder=True)


def _check_report_outputs(args) -> None:
    if args.html is not None:
        check_writable_path("--html", args.html)
    for option, folder in (("--png", args.png), ("--svg", args.svg)):
        if folder is not None:
            check_writable_path(option, folder, folder=True)


def _run(args: argparse.Namespace, engine: Engine | str, env: GriffinEnv | None) -> int:
    _check_outputs(args, engine)
    variables = _variables(args.var)
    suite = runner.load_suite(args.file, variables=variables)
    runner.run_data_time(suite, args.data_time)  # a bad --data-time is refused before the scan
    sinks = resolve_sinks(suite, env)  # before the run: a sink that cannot be written fails first
    alerts = alert_targets(suite, args.notify)  # and a bad alert target, or its secret not set
    history = None if args.no_history else args.history
    not_stored: HistoryWriteError | None = None
    with terminal_progress(shows_progress(args.quiet, args.format == "json")) as phase:
        try:
            result = runner.run(
                suite,
                engine,
                remote=args.remote,
                record_sample=max(args.sample, 0),
                records_to=args.records_to,
                history=history,
                phase=phase,
                data_time=args.data_time,  # the suite's ${name} took their values as it loaded
            )
        except HistoryWriteError as error:  # the run is done: its outputs are written all the same
            assert error.result is not None
            result, not_stored = error.result, error
        write_sinks(sinks, suite, result.metrics, result.run_id or f"gryph-{result.started}")
        if _wants_report(args):
            phase("drawing the report's charts")
            documents = (
                HistoryStore(history).documents(result.name, REPORT_RUNS) if history and not_stored is None else []
            )
            # the report is this run's: the runs up to it in data-time order (a backfilled day comes
            # before later days' runs), this one last
            ids = [document.get("run_id") for document in documents]
            documents = documents[: ids.index(result.run_id) + 1] if result.run_id in ids else []
            _write_report(documents or [result.to_dict()], args)
    _write(to_json(result.to_dict()) if args.format == "json" else to_text(result, args.strict), args.output)
    if args.junit:
        _write(to_junit(result, args.strict), args.junit)
    if args.markdown:
        _write(to_markdown(result, args.strict), args.markdown)
    passes = gate_passes(result, args.strict)
    report = str(Path(args.html).absolute()) if args.html is not None else None
    not_sent = send_alerts(alerts, result, history, report)
    warn_not_sent(not_sent, passes)
    if not_stored is not None:  # said last, after the report, where it is seen
        print(for_terminal_lines(f"{not_stored}\n    the run {'passed' if passes else 'failed'}"), file=sys.stderr)
        return not_stored.exit_code if passes else EXIT_FAILED  # a failed run's exit 1 still fails CI
    if not_sent and passes:
        return not_sent[0].exit_code
    return EXIT_OK if passes else EXIT_FAILED


def _wants_report(args) -> bool:
    return any(option is not None for option in (args.html, args.png, args.svg))


def _write_report(documents: list[dict], args) -> None:
    """The report of the newest of ``documents``: its page and images, each file written whole."""
    from ..outputs.html import Report  # altair takes half a second to import: only runs with a report pay it

    report = Report(documents)
    if args.html is not None:  # from redacted documents; its scripts are code, not text to redact
        write_whole(report.html(), args.html)
    for kind in ("png", "svg"):
        if getattr(args, kind) is not None:
            report.write_images(getattr(args, kind), kind)


def _report(args) -> int:
    """The HTML report of a suite from its stored runs alone."""
    if not _wants_report(args):
        raise InvalidInput(
            "NO_OUTPUT",
            "gryph report needs somewhere to write: -o PATH, --png DIR or --svg DIR",
            text=args.suite,
            hint="gryph report SUITE -o report.html",
        )
    _check_report_outputs(args)
    store = _stored_suite(args.history, args.suite)
    _write_report(store.documents(args.suite, args.runs), args)
    return EXIT_OK


def _stored_suite(history: str, suite: str) -> HistoryStore:
    """The history, which holds runs of ``suite``; else NO_STORED_RUNS (exit 2) naming the closest
    suite it holds, the same error for every command that reads a suite's runs."""
    store = HistoryStore(history)
    stored = store.suites()
    if suite in stored:
        return store
    nearest = closest(suite, stored)
    if nearest is not None:
        hint = f"did you mean {nearest!r}?"
    elif stored:
        hint = f"suites stored there: {', '.join(stored[:12])}" + (", ..." if len(stored) > 12 else "")
    else:
        hint = "gryph run SUITE --history PATH stores runs"
    raise InvalidInput(
        "NO_STORED_RUNS",
        f"no stored runs of suite {suite!r} in {history}",
        location=Location(file=history),
        text=suite,
        hint=hint,
    )


def _history(args) -> int:
    store = _stored_suite(args.history, args.suite)
    runs = store.runs(args.suite, max(args.limit, 0), superseded=args.all)
    if args.measure is None:
        metrics = store.run_metrics([r["run_id"] for r in runs])
        runs = [{**r, "metrics": metrics.get(r["run_id"], {})} for r in runs]
    if args.measure is not None:
        runs = [
            {
                "run_id": r["run_id"],
                "started": r["started"],
                "data_time": r["data_time"],
                "pass": r["pass"],
                "value": r["measure"][args.measure],
                **({"superseded_by": r["superseded_by"]} if args.all else {}),
            }
            for r in runs
            if args.measure in r["measure"]
        ]
    if args.format == "json":
        sys.stdout.write(to_json({"suite": args.suite, "runs": runs}))
    elif not runs:
        print(
            for_terminal(
                f"no runs of {args.suite!r}"
                + (f" with measure {args.measure!r}" if args.measure else "")
                + f" in {args.history}"
            )
        )
    elif args.measure is not None:
        print(
            table(
                ["started", "data time", "pass", args.measure],
                [[r["started"], _data_time_cell(r), r["pass"], r["value"]] for r in runs],
            )
        )
    else:
        rows = [row for r in runs for row in _value_rows([r["started"], _data_time_cell(r), r["engine"], r["pass"]], r)]
        print(table(["started", "data time", "engine", "pass", "measure or rule", "value"], rows))
    return EXIT_OK


def _value_rows(run_cells: list[object], run: dict) -> list[list[object]]:
    """A run's lines in the history's table: one per measure and rule, named as checks read them
    (``measures["rows"]``, ``metrics["ids"]``), the run's own cells on its first line only."""
    values = [(f"measures[{json.dumps(name, ensure_ascii=False)}]", cell(v)) for name, v in run["measure"].items()]
    values += [
        (f"metrics[{json.dumps(rule, ensure_ascii=False)}]", metrics_summary(v)) for rule, v in run["metrics"].items()
    ]
    blank = [""] * len(run_cells)
    return [[*(run_cells if i == 0 else blank), name, v] for i, (name, v) in enumerate(values or [("", "")])]


def _data_time_cell(run: dict) -> str:
    shown = run["data_time"] or ""
    return f"{shown} (superseded)" if run.get("superseded_by") else shown


def _backfill(args, engine: Engine | str) -> int:
    """The suite run once per data time of the range, oldest first, each stored in the history
    (a data time run before is replaced) and alerting as a run does; exit 1 when any run fails,
    after running them all (else 5 when an alert could not be delivered)."""
    moments = data_time_range(args.start, args.end, args.step)
    for text in args.var:  # every --var checked before the first run
        parse_assignment(text)
    outcomes, not_sent = [], []
    for moment in moments:
        data_time = shown_data_time(moment)
        variables = _variables([text.replace("{data_time}", data_time) for text in args.var])
        suite = runner.load_suite(args.file, variables=variables)
        alerts = alert_targets(suite, args.notify)  # a bad target is refused before the first run
        result = runner.run(suite, engine, remote=args.remote, history=args.history, data_time=data_time)
        outcomes.append({"data_time": data_time, "run_id": result.run_id, "pass": result.passed})
        if args.format == "text":
            print(for_terminal(f"{data_time}: {'passed' if result.passed else 'FAILED'}"))
        failures = send_alerts(alerts, result, args.history, None)  # each run alerts as a gryph run does
        warn_not_sent(failures, result.passed)
        not_sent += failures
    if args.format == "json":
        sys.stdout.write(to_json({"runs": outcomes}))
    if not all(o["pass"] for o in outcomes):
        return EXIT_FAILED
    return not_sent[0].exit_code if not_sent else EXIT_OK


def _engine(args: argparse.Namespace, env: GriffinEnv | None) -> Engine | str:
    """The engine name, or an open engine: DuckDB on the user's database file, Spark set up by env.json."""
    name = args.engine or ("spark" if args.remote else "duckdb")
    if args.database is not None and name != "duckdb":
        raise InvalidInput(
            "BAD_OPTION",
            "--database names a DuckDB file: it goes with the duckdb engine",
            text=args.database,
            hint="drop --database, or --engine/--remote",
        )
    for option, value in (("--memory-limit", args.memory_limit), ("--temp-directory", args.temp_directory)):
        if value is not None and name != "duckdb":
            raise InvalidInput(
                "BAD_OPTION",
                f"{option} sets how DuckDB uses memory: it goes with the duckdb engine",
                text=value,
                hint=f"drop {option}; a Spark cluster's memory is set on the cluster",
            )
    if args.read_per_scan and name != "spark":
        raise InvalidInput(
            "BAD_OPTION",
            "--read-per-scan is how the spark engine reads sources",
            text="--read-per-scan",
            hint="drop it, or add --engine spark/--remote",
        )
    settings = env.spark_config if env is not None else {}
    if settings and name != "spark":
        print(for_terminal(f"note: {args.env}: spark.config does not apply to the duckdb engine"), file=sys.stderr)
    if name == "spark" and (settings or args.read_per_scan):
        spark = open_spark(args.remote, read_once=not args.read_per_scan, settings=settings)
        if spark.refused_settings:
            refused_text = (
                f"note: {args.env}: not applied, set them on the Spark server: {', '.join(spark.refused_settings)}"
            )
            print(for_terminal(refused_text), file=sys.stderr)
        return spark
    if args.database is not None and not Path(args.database).is_file():
        raise EngineError("DATABASE_NOT_FOUND", f"no DuckDB database at {args.database}", text=args.database)
    if args.database is None and args.memory_limit is None and args.temp_directory is None:
        return name
    # the user's database is only read, unless the run writes its records into it
    writes = (getattr(args, "records_to", None) or "").startswith("table:")
    return open_engine(
        "duckdb",
        database=args.database,
        memory_limit=args.memory_limit,
        temp_directory=args.temp_directory,
        read_only=args.database is not None and not writes,
    )


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


def _load_env(path: str) -> GriffinEnv:
    from ..griffin.env import load_env

    return load_env(path)


def _command(args: argparse.Namespace) -> int:
    engine: Engine | str | None = None
    try:
        if args.command == "history":
            return _history(args)
        if args.command == "report":
            return _report(args)
        env = _load_env(args.env) if getattr(args, "env", None) is not None else None
        engine = _engine(args, env)
        if args.command == "suggest":
            return run_suggest_command(args, engine)
        if args.command == "run":
            return _run(args, engine, env)
        if args.command == "stream":
            return run_stream_command(args, engine, env)
        if args.command == "backfill":
            return _backfill(args, engine)
        if args.command == "validate":
            suite = validate(args.file, engine, remote=args.remote).suite
            print(
                for_terminal(
                    f"{args.file}: ok ({len(suite.rules)} rules, {len(suite.measures)} measures, "
                    f"{len(suite.checks)} checks, {len(suite.sources)} sources; pass when {suite.policy})"
                )
            )
        else:
            sys.stdout.write(for_terminal_lines(runner.explain(args.file, engine, remote=args.remote)))
        return EXIT_OK
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
            return EXIT_ENGINE
        internal = f"internal error: {type(error).__name__}: {redact(str(error))} (run again with --debug for details)"
        print(for_terminal_lines(internal), file=sys.stderr)
        return EXIT_ENGINE
    finally:
        if engine is not None and not isinstance(engine, str):
            engine.close()


if __name__ == "__main__":
    entry()
