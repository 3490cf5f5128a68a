"""``gryph history SUITE`` and ``gryph report SUITE``: a suite's stored runs, as a table, JSON
or an HTML report (no data scan)."""

from __future__ import annotations

import argparse
import json
import sys

from gryph.compiler.checks.segment_checks import segment_label
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
from .history_segments import (
    ALL,
    segment_cell,
    segment_rows,
    stored_segments,
    wanted_segment,
    with_segments,
    without_segments,
)
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
    history.add_argument(
        "--segments", action="store_true", help="also each segment's values of the measures and rules `by COLUMN`"
    )
    history.add_argument(
        "--segment",
        metavar="VALUE",
        help='the runs holding this segment, with its values: as gryph shows it ("FR", NULL, 3) or bare text (FR)',
    )
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
    listed = runs
    by_segment = args.segments or args.segment is not None
    wanted = ALL if args.segment is None else wanted_segment(args.segment)
    if by_segment:
        runs = [kept for r in runs if (kept := with_segments(r, wanted)) is not None]
    else:
        runs = [without_segments(r) for r in runs]
    if args.measure is not None:
        runs = [
            _measure_row(r, args)
            for r in runs
            if args.measure in r["measure"] and (args.segment is None or args.measure in r["measure_segments"])
        ]
    if args.format == "json":
        sys.stdout.write(to_json({"suite": args.suite, "runs": runs}))
    elif not runs:
        print(for_terminal(_no_runs(args, listed)))
    elif args.measure is not None:
        print(
            table(
                ["started", "data time", "pass", *(["segment"] if by_segment else []), args.measure],
                _measure_rows(runs, args),
            )
        )
    else:
        rows = [
            row
            for r in runs
            for row in _value_rows([r["started"], _data_time_cell(r), r["engine"], r["pass"]], r, by_segment)
        ]
        segment = ["segment"] if by_segment else []
        print(table(["started", "data time", "engine", "pass", "measure or rule", *segment, "value"], rows))
    return EXIT_OK


def _measure_row(run: dict, args) -> dict:
    """A run's line of ``--measure NAME``: its value; with ``--segments`` each segment's too, with
    ``--segment`` that segment's in its place."""
    row = {"run_id": run["run_id"], "started": run["started"], "data_time": run["data_time"], "pass": run["pass"]}
    split = run.get("measure_segments", {}).get(args.measure)
    if args.segment is not None:
        (picked,) = split["values"]
        row.update(column=split["column"], segment=picked["segment"], value=picked["value"])
    else:
        row["value"] = run["measure"][args.measure]
        row.update({"segments": split} if split is not None else {})
    return {
        **row,
        **({"accepted": True} if run.get("accepted") else {}),
        **({"superseded_by": run["superseded_by"]} if args.all else {}),
    }


def _measure_rows(runs: list[dict], args) -> list[list[object]]:
    """``--measure NAME``'s table: a line per run; with ``--segments`` its segments' lines below it."""
    rows: list[list[object]] = []
    for run in runs:
        cells = [run["started"], _data_time_cell(run), run["pass"]]
        if args.segment is not None:
            rows.append([*cells, segment_cell(run["column"], run["segment"]), run["value"]])
        elif args.segments:
            split = run.get("segments", {"column": "", "values": []})
            rows.append([*cells, "", run["value"]])
            rows += [["", "", "", segment_cell(split["column"], v["segment"]), v["value"]] for v in split["values"]]
        else:
            rows.append([*cells, run["value"]])
    return rows


def _no_runs(args, listed: list[dict]) -> str:
    """Why nothing is listed; for a segment no run holds, the segments they do hold."""
    said = f"no runs of {args.suite!r}"
    if args.measure is not None:
        said += f" with measure {args.measure!r}"
    if args.segment is not None:
        said += f" {'in' if args.measure is not None else 'with'} segment {segment_label(wanted_segment(args.segment))}"
        held = stored_segments(listed)
        if held:
            return (
                f"{said} in {args.history} (segments stored: {', '.join(held[:12])}{', ...' if len(held) > 12 else ''})"
            )
    return f"{said} in {args.history}"


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


def _value_rows(run_cells: list[object], run: dict, by_segment: bool) -> list[list[object]]:
    """A run's lines in the history's table: one per measure and rule, named as checks read them
    (``measures["rows"]``, ``metrics["ids"]``), with ``by_segment`` each of its segments below
    it (``country = "FR"``), the run's own cells on its first line only."""
    values: list[tuple[str, str, str]] = []
    for name, value in run["measure"].items():
        shown = f"measures[{json.dumps(name, ensure_ascii=False)}]"
        values.append((shown, "", cell(value)))
        values += [(shown, segment, cell(v)) for segment, v in segment_rows(run, "measure_segments", name)]
    for rule, metrics in run["metrics"].items():
        shown = f"metrics[{json.dumps(rule, ensure_ascii=False)}]"
        values.append((shown, "", metrics_summary(metrics)))
        values += [(shown, segment, metrics_summary(m)) for segment, m in segment_rows(run, "segments", rule)]
    if run.get("error"):
        values = [("error", "", broke(run["error"]["code"], run["error"]["message"]).text)]
    blank = [""] * len(run_cells)
    return [
        [*(run_cells if i == 0 else blank), name, *([segment] if by_segment else []), v]
        for i, (name, segment, v) in enumerate(values or [("", "", "")])
    ]


def _data_time_cell(run: dict) -> str:
    marks = [mark for mark, on in (("superseded", run.get("superseded_by")), ("accepted", run.get("accepted"))) if on]
    return " ".join([run["data_time"] or "", *(f"({mark})" for mark in marks)]).strip()
