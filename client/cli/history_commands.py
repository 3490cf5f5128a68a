"""``gryph history SUITE`` and ``gryph report SUITE``: a suite's stored runs, as a table, JSON
or an HTML report (no data scan)."""

from __future__ import annotations

import argparse
import json
import sys

from gryph.compiler.errors import InvalidInput, Location, closest
from gryph.compiler.suites.data_times import parse_data_time
from gryph.compiler.suites.data_times import shown as shown_data_time

from ..outputs.headline import broke
from ..outputs.text import cell, metrics_summary, table
from ..outputs.visible_text import for_terminal
from ..results.run_result import to_json
from ..store.history import HistoryStore
from . import options
from .exit_codes import EXIT_OK
from .html_reports import check_report_outputs, wants_report, write_report

ACCEPT = "accept"  # gryph history accept SUITE --data-time TIME


def add_history_options(history: argparse.ArgumentParser) -> None:
    history.usage = "%(prog)s SUITE [options]\n       %(prog)s accept SUITE --data-time TIME [--history PATH]"
    history.add_argument("suite", help="the suite's name")
    history.add_argument("accepted", nargs="?", metavar="SUITE", help="with accept: the suite whose run it marks")
    history.add_argument(
        "--data-time", metavar="TIME", help="accept: the run whose values anomaly baselines take as normal"
    )
    history.add_argument("--measure", help="list this measure's values only")
    options.history(history)
    history.add_argument("--limit", type=int, default=50, help="newest runs shown (default 50)")
    options.output_format(history)
    history.add_argument("--all", action="store_true", help="also the runs a rerun of their data time replaced")


def add_report_options(report: argparse.ArgumentParser) -> None:
    report.add_argument("suite", help="the suite's name")
    options.history(report)
    report.add_argument(
        "--runs",
        type=options.positive,
        default=options.REPORT_RUNS,
        help=f"newest runs in the trend charts (default {options.REPORT_RUNS})",
    )
    options.report_files(report, "the newest run", ("-o", "--html"))


def report_command(args) -> int:
    """The HTML report of a suite from its stored runs alone."""
    if not wants_report(args):
        raise InvalidInput(
            "NO_OUTPUT",
            "gryph report needs somewhere to write: -o PATH, --png DIR or --svg DIR",
            text=args.suite,
            hint="gryph report SUITE -o report.html",
        )
    check_report_outputs(args)
    store = _stored_suite(args.history, args.suite)
    write_report(store.documents(args.suite, args.runs), args)
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


def history_command(args) -> int:
    if args.accepted is not None or args.data_time is not None:
        return _accept(args)
    store = _stored_suite(args.history, args.suite)
    accepted = store.accepted(args.suite)
    runs = [
        {**r, "accepted": True} if r["run_id"] in accepted else r
        for r in store.runs(args.suite, max(args.limit, 0), superseded=args.all)
    ]
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
                **({"accepted": True} if r.get("accepted") else {}),
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


def _accept(args) -> int:
    """``gryph history accept SUITE --data-time TIME``: that run's values are normal from now on."""
    if args.suite != ACCEPT or args.accepted is None or args.data_time is None:
        raise InvalidInput(
            "BAD_OPTION",
            "gryph history lists one suite's runs, or accepts one run: accept SUITE --data-time TIME",
            text=" ".join(part for part in (args.suite, args.accepted) if part),
            hint="gryph history accept SUITE --data-time 2026-03-17",
        )
    data_time = parse_data_time(args.data_time)
    store = _stored_suite(args.history, args.accepted)
    run_id = store.accept(args.accepted, data_time)
    shown = shown_data_time(data_time)
    if run_id is None:
        stored = [r["data_time"] for r in store.runs(args.accepted, 5) if r["data_time"]]
        raise InvalidInput(
            "NO_RUN_AT_DATA_TIME",
            f"suite {args.accepted!r} has no current run of data time {shown} to accept",
            location=Location(file=args.history),
            text=args.data_time,
            hint=f"its newest data times: {', '.join(stored)}" if stored else "its runs have no data time",
        )
    print(for_terminal(f"accepted {args.accepted} at {shown} (run {run_id}): anomaly baselines include its values"))
    return EXIT_OK


def _value_rows(run_cells: list[object], run: dict) -> list[list[object]]:
    """A run's lines in the history's table: one per measure and rule, named as checks read them
    (``measures["rows"]``, ``metrics["ids"]``), the run's own cells on its first line only."""
    values = [(f"measures[{json.dumps(name, ensure_ascii=False)}]", cell(v)) for name, v in run["measure"].items()]
    values += [
        (f"metrics[{json.dumps(rule, ensure_ascii=False)}]", metrics_summary(v)) for rule, v in run["metrics"].items()
    ]
    if run.get("error"):
        values = [("error", broke(run["error"]["code"], run["error"]["message"]).text)]
    blank = [""] * len(run_cells)
    return [[*(run_cells if i == 0 else blank), name, v] for i, (name, v) in enumerate(values or [("", "")])]


def _data_time_cell(run: dict) -> str:
    marks = [mark for mark, on in (("superseded", run.get("superseded_by")), ("accepted", run.get("accepted"))) if on]
    return " ".join([run["data_time"] or "", *(f"({mark})" for mark in marks)]).strip()
