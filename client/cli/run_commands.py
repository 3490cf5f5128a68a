"""``gryph run SUITE`` and ``gryph backfill SUITE --from --to``: a suite run once, or once per
data time of a range, with its outputs, history and alerts."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gryph.compiler.errors import GryphError
from gryph.compiler.redaction import redact
from gryph.compiler.suites.data_times import data_time_range
from gryph.compiler.suites.data_times import shown as shown_data_time
from gryph.compiler.suites.suite_variables import parse_assignment

from ..alerts.run_alerts import AlertTargets, alert_targets, send_alerts, warn_not_sent
from ..griffin.sinks import resolve_sinks, write_sinks
from ..lineage import RunLineage, run_lineage
from ..outputs.gate import gate_passes, to_junit, to_markdown
from ..outputs.segments_text import cap_warnings
from ..outputs.text import to_text
from ..outputs.visible_text import for_terminal, for_terminal_lines
from ..results.output_files import check_writable_path, write_whole
from ..results.run_result import to_json
from ..run import runner
from ..run.errored_runs import errored_run, store_errored
from ..run.progress import shows_progress, terminal_progress
from ..store.history import HistoryStore
from ..store.history_writes import HistoryWriteError
from . import options
from .exit_codes import EXIT_FAILED, EXIT_OK
from .html_reports import check_report_outputs, wants_report, write_report

if TYPE_CHECKING:
    from gryph.compiler.engine import Engine
    from gryph.compiler.suites.suite import Suite

    from ..griffin.env import GriffinEnv


def add_run_options(run: argparse.ArgumentParser) -> None:
    options.suite_file(run)
    options.output_format(run)
    outputs = options.group(run, "outputs")
    outputs.add_argument("--output", metavar="PATH", help="write the report to this file instead of stdout")
    options.sample(run)
    outputs.add_argument(
        "--records-to",
        metavar="DEST",
        help="write every record output in full where the engine runs: a folder (parquet files) or table:PREFIX",
    )
    options.quarantine_to(run)
    options.history(run)
    options.group(run, "history").add_argument(
        "--no-history", action="store_true", help="neither read nor store run history"
    )
    options.gate_files(run)
    options.strict(run)
    options.report_files(run, "the run")
    options.notify(run)
    options.lineage(run)
    outputs.add_argument("--quiet", action="store_true", help="no progress display on the terminal")
    options.variables(run)
    options.data_time(run)


def add_backfill_options(backfill: argparse.ArgumentParser) -> None:
    options.suite_file(backfill)
    options.history(backfill)
    backfill.add_argument("--from", dest="start", required=True, metavar="TIME", help="the first data time")
    backfill.add_argument("--to", dest="end", required=True, metavar="TIME", help="the last data time (included)")
    backfill.add_argument("--step", default="1d", help="between data times: 1d (default), 6h, 30m ...")
    options.variables(backfill, each_data_time=True)
    options.output_format(backfill)
    options.notify(backfill)
    options.lineage(backfill)


def run_command(args: argparse.Namespace, engine: Engine | str, env: GriffinEnv | None) -> int:
    _check_outputs(args, engine)
    variables = options.assigned(args.var)
    suite = runner.load_suite(args.file, variables=variables, server=args.server)
    runner.run_data_time(suite, args.data_time)  # a bad --data-time is refused before the scan
    sinks = resolve_sinks(suite, env)  # before the run: a sink that cannot be written fails first
    alerts = alert_targets(suite, args.notify)  # and a bad alert target, or its secret not set
    lineage = run_lineage(args.openlineage, args.openlineage_namespace, suite, engine)  # and a bad --openlineage
    history = None if args.no_history else args.history
    not_stored: HistoryWriteError | None = None
    started = dt.datetime.now(dt.timezone.utc)
    lineage.start()
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
                quarantine_to=args.quarantine_to,
            )
        except HistoryWriteError as error:  # the run is done: its outputs are written all the same
            assert error.result is not None
            result, not_stored = error.result, error
        except GryphError as error:  # it broke: a trace in the history and an alert, then the error
            data_time = runner.run_data_time(suite, args.data_time)
            keep_broken(suite, engine, history, alerts, data_time, started, error, lineage)
            raise
        write_sinks(sinks, suite, result.metrics, result.run_id or f"gryph-{result.started}")
        if wants_report(args):
            phase("drawing the report's charts")
            documents = (
                HistoryStore(history).documents(result.name, options.REPORT_RUNS)
                if history and not_stored is None
                else []
            )
            # the report is this run's: the runs up to it in data-time order (a backfilled day comes
            # before later days' runs), this one last
            ids = [document.run_id for document in documents]
            documents = documents[: ids.index(result.run_id) + 1] if result.run_id in ids else []
            write_report(documents or [result.document()], args)
    _write(to_json(result.to_dict()) if args.format == "json" else to_text(result, args.strict), args.output)
    if args.format == "json" or args.output is not None:  # no text report on the terminal to say them
        for warning in cap_warnings(result.document()):
            print(warning, file=sys.stderr)
    if args.junit:
        _write(to_junit(result, args.strict), args.junit)
    if args.markdown:
        _write(to_markdown(result, args.strict), args.markdown)
    passes = gate_passes(result, args.strict)
    report = str(Path(args.html).absolute()) if args.html is not None else None
    alerts_not_sent = send_alerts(alerts, result, history, report)
    warn_not_sent(alerts_not_sent, passes)
    lineage.end(result.document(), passes)
    not_sent: list[GryphError] = [*alerts_not_sent, *lineage.failures]
    if not_stored is not None:  # said last, after the report, where it is seen
        print(for_terminal_lines(f"{not_stored}\n    the run {'passed' if passes else 'failed'}"), file=sys.stderr)
        return not_stored.exit_code if passes else EXIT_FAILED  # a failed run's exit 1 still fails CI
    if not_sent and passes:
        return not_sent[0].exit_code
    return EXIT_OK if passes else EXIT_FAILED


def backfill_command(args, engine: Engine | str) -> int:
    """The suite run once per data time of the range, oldest first, each stored in the history
    (a data time run before is replaced) and alerting as a run does. Every day runs: one that
    breaks (its file missing) is kept as an errored run and told, and the next day runs. The exit
    code is the worst: a run's error (3, or 2), else 1 when a run failed, else 5 when an alert
    could not be delivered."""
    moments = data_time_range(args.start, args.end, args.step)
    for text in args.var:  # every --var checked before the first run
        parse_assignment(text)
    outcomes, broke = [], []
    not_sent: list[GryphError] = []
    for moment in moments:
        data_time = shown_data_time(moment)
        variables = options.assigned([text.replace("{data_time}", data_time) for text in args.var])
        suite = runner.load_suite(args.file, variables=variables, server=args.server)
        alerts = alert_targets(suite, args.notify)  # a bad target is refused before the first run
        lineage = run_lineage(args.openlineage, args.openlineage_namespace, suite, engine)
        started = dt.datetime.now(dt.timezone.utc)
        lineage.start()
        try:
            result = runner.run(suite, engine, remote=args.remote, history=args.history, data_time=data_time)
        except HistoryWriteError:
            raise
        except GryphError as error:
            broke.append(error)
            outcomes.append(
                {"data_time": data_time, "pass": False, "error": {"code": error.code, "message": str(error)}}
            )
            if args.format == "text":
                print(for_terminal(f"{data_time}: ERROR {error.code}"))
            print(for_terminal_lines(f"{data_time}: {error}"), file=sys.stderr)
            keep_broken(suite, engine, args.history, alerts, moment, started, error, lineage)
            not_sent += lineage.failures
            continue
        outcomes.append({"data_time": data_time, "run_id": result.run_id, "pass": result.passed})
        if args.format == "text":
            print(for_terminal(f"{data_time}: {'passed' if result.passed else 'FAILED'}"))
        for warning in cap_warnings(result.document()):  # a backfill prints no report that would say them
            print(f"{data_time}: {warning}", file=sys.stderr)
        failures = send_alerts(alerts, result, args.history, None)  # each run alerts as a gryph run does
        warn_not_sent(failures, result.passed)
        lineage.end(result.document(), result.passed)
        not_sent += [*failures, *lineage.failures]
    if args.format == "json":
        sys.stdout.write(to_json({"runs": outcomes}))
    if broke:
        return max(error.exit_code for error in broke)
    if not all(o["pass"] for o in outcomes):
        return EXIT_FAILED
    return not_sent[0].exit_code if not_sent else EXIT_OK


# a history that cannot be opened or written, or an output path refused, broke where the run is
# kept, not the run: nothing more is written there
_ERRORS_OF_WHERE_RUNS_GO = frozenset({"HISTORY_UNREADABLE", "HISTORY_LOCKED", "HISTORY_NOT_WRITTEN", "BAD_OUTPUT_PATH"})


def keep_broken(
    suite: Suite,
    engine: Engine | str,
    history: str | None,
    alerts: AlertTargets,
    data_time,
    started: dt.datetime,
    error: GryphError,
    lineage: RunLineage,
) -> None:
    """A run that broke, kept in the history as an errored run, alerting as an incident and ending
    its lineage with FAIL; the history's own errors are not a run's (nothing is written to a
    history that failed)."""
    result = errored_run(suite, engine, data_time, error, started)
    lineage.end(result.document(), False)
    if error.code in _ERRORS_OF_WHERE_RUNS_GO:
        return
    not_stored = store_errored(history, result, data_time, started)
    if not_stored is not None:
        print(for_terminal_lines(str(not_stored)), file=sys.stderr)
    warn_not_sent(send_alerts(alerts, result, history, None), False)


def _check_outputs(args: argparse.Namespace, engine: Engine | str) -> None:
    """Every output path the run will write, refused before the run when it can never be written."""
    for option, path in (("--output", args.output), ("--junit", args.junit), ("--markdown", args.markdown)):
        if path is not None:
            check_writable_path(option, path)
    check_report_outputs(args)
    records_to = args.records_to
    # on Spark the server writes records, to its own file system: only a local one is checked here
    if (
        records_to
        and not records_to.startswith("table:")
        and "://" not in records_to
        and getattr(engine, "name", engine) == "duckdb"
    ):
        check_writable_path("--records-to", records_to, folder=True)


def _write(text: str, output: str | None) -> None:
    text = redact(text)  # a report in text, JSON, JUnit or Markdown shows no secret
    if output is None:
        sys.stdout.write(text)
    else:
        write_whole(text, output)
