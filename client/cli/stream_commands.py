"""``gryph stream SUITE``, ``gryph stream status SUITE`` and ``gryph stream reset SUITE``.

A stream prints each committed batch as it is done: with ``--format json`` one result document
per line (the batch's ``stream`` part in it), else a heading line and the batch's report.
It exits 1 when a batch did not pass its policy, as ``gryph run`` does for a run. A batch alerts
(``notify``, --notify) when its verdict differs from the batch before (the history's newest run with
--history, else this process's previous batch).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gryph.compiler.errors import InvalidInput
from gryph.compiler.language.time_literals import duration_ms
from gryph.compiler.redaction import redact

from ..alerts.delivery import AlertDeliveryError
from ..alerts.routing import needs_incidents
from ..alerts.run_alerts import (
    AlertTargets,
    alert_targets,
    send_alerts,
    send_on_change,
    warn_not_sent,
)
from ..lineage import RunLineage, run_lineage
from ..outputs.gate import gate_passes, to_junit, to_markdown
from ..outputs.readable_values import counted
from ..outputs.segments_text import cap_warnings
from ..outputs.text import to_text
from ..outputs.visible_text import for_terminal, for_terminal_lines
from ..results.document import ResultDocument, StreamBatch
from ..results.output_files import check_writable_path, write_whole
from ..results.run_result import RunResult, to_json
from ..streaming.outbox import Output
from . import options

if TYPE_CHECKING:
    from ..griffin.env import GriffinEnv

ACTIONS = ("status", "reset")
REPORT_BATCHES = 200  # the newest batches a stream's report shows


def add_stream_options(command: argparse.ArgumentParser) -> None:
    """The options of ``gryph stream``."""
    # three forms on one parser: the usage line says so, not argparse's generic "file [suite]"
    command.usage = (
        "%(prog)s SUITE [options]\n       %(prog)s status SUITE [--state PATH]\n"
        "       %(prog)s reset SUITE [--to earliest|latest] --yes"
    )
    options.suite_file(command)
    command.add_argument("suite", nargs="?", help="with status or reset: the suite whose stream it is")
    command.add_argument("--trigger", help="a batch every so often, e.g. 30s (default: the suite's stream every)")
    how = command.add_mutually_exclusive_group()
    how.add_argument("--once", action="store_true", help="run one batch (if anything is new), then stop")
    how.add_argument(
        "--available-now", action="store_true", help="read what is there now, in as many batches as needed, then stop"
    )
    command.add_argument("--max-batches", type=int, metavar="N", help="stop after N batches")
    command.add_argument("--state", metavar="PATH", help="the stream's state (default .gryph/streams/SUITE.duckdb)")
    command.add_argument(
        "--cluster-state",
        metavar="PATH",
        help="where the engine keeps the rows a stream reads again (accuracy's misses, windows): a folder the "
        "Spark cluster reaches (default: beside --state)",
    )
    command.add_argument(
        "--adopt-state",
        action="store_true",
        help="take over the state another suite file left (this suite, moved there before): a state belongs to "
        "one suite file",
    )
    options.history(command, default=None, what=": each batch is stored in it as a run")
    command.add_argument(
        "--html", metavar="PATH", help="write the stream's HTML report after each batch (from --history when given)"
    )
    options.gate_files(command, each=" of each batch")
    options.notify(command)
    options.lineage(command)
    options.output_format(command)
    options.sample(command)
    options.quarantine_to(command)
    command.add_argument("--to", choices=("earliest", "latest"), help="reset: where Kafka sources start again")
    command.add_argument("--yes", action="store_true", help="reset: yes, forget where the stream stands")


def run_stream_command(args: argparse.Namespace, engine, env: GriffinEnv | None = None) -> int:
    """A stream of ``args.file``; a Griffin env.json's ``batch.interval`` is its default trigger."""
    from ..streaming.stream_runner import stream, stream_suite  # DuckDB (the stream's state) loads for streams only

    if args.file in ACTIONS and args.suite is not None:
        return _status(args) if args.file == "status" else _reset(args)
    if args.suite is not None:
        raise InvalidInput(
            "BAD_OPTION",
            f"gryph stream takes one suite; {args.suite!r} is one more",
            text=args.suite,
            hint="gryph stream SUITE, gryph stream status SUITE or gryph stream reset SUITE --to earliest --yes",
        )
    trigger = _trigger(args.trigger) or (env.batch_interval_ms if env is not None else None)
    if env is not None and env.not_applied:
        # gryph's state file holds the offsets; ZooKeeper, Spark checkpoints and a second timer have no part
        print(
            for_terminal(
                f"note: {args.env}: not applied here (a stream keeps its own state): {', '.join(env.not_applied)}"
            ),
            file=sys.stderr,
        )
    suite = stream_suite(args.file)
    for option, path in (("--junit", args.junit), ("--markdown", args.markdown)):
        if path is not None:  # a path that can never be written: refused before any batch
            check_writable_path(option, path)
    # a bad alert target, unset secret or bad --openlineage: refused before any batch
    outputs = _Outputs(
        args,
        alert_targets(suite, args.notify),
        run_lineage(args.openlineage, args.openlineage_namespace, suite, engine),
    )
    passed = True
    for result in stream(
        suite,
        engine,
        remote=args.remote,
        trigger_ms=trigger,
        once=args.once,
        available_now=args.available_now,
        max_batches=args.max_batches,
        state=args.state,
        cluster_state=args.cluster_state,
        history=args.history,
        record_sample=max(args.sample, 0),
        adopt_state=args.adopt_state,
        outputs=outputs.each(),
        quarantine_to=args.quarantine_to,
    ):
        passed = passed and gate_passes(result, False)
    if not passed:
        return 1
    not_sent = [*outputs.not_sent, *outputs.lineage.failures]
    return not_sent[0].exit_code if not_sent else 0


class _Outputs:
    """Where a stream's CLI publishes each committed batch, in order: the printed line or report
    text, the --html report, JUnit XML, Markdown, alerts, OpenLineage events. The stream marks each done in its
    state (outbox.py), so a batch a killed client left half-published gets the rest on the next start."""

    def __init__(self, args: argparse.Namespace, alerts: AlertTargets, lineage: RunLineage) -> None:
        self.args, self.alerts, self.lineage = args, alerts, lineage
        self.report = str(Path(args.html).absolute()) if args.html is not None else None
        self.documents: list[ResultDocument] = []  # this start's batches, for a report without a history
        self.previous: list[ResultDocument] = []  # the batches before, where no history keeps them
        self.not_sent: list[AlertDeliveryError] = []

    def each(self) -> list[Output]:
        wanted = [Output("printed", self._print)]
        if self.report is not None:
            wanted.append(Output("report", self._write_report))
        for name, path, render in (("junit", self.args.junit, to_junit), ("markdown", self.args.markdown, to_markdown)):
            if path is not None:
                wanted.append(Output(name, _file_writer(path, render)))
        if self.alerts.targets:
            wanted.append(Output("alerts", self._alert))
        if self.lineage.target is not None:
            wanted.append(Output("lineage", self._lineage))
        return wanted

    def _print(self, result: RunResult) -> None:
        if self.args.format == "json":
            sys.stdout.write(to_json(result.to_dict(), one_line=True))
            sys.stdout.flush()
            for warning in cap_warnings(result.document()):  # the text report says them in place
                print(warning, file=sys.stderr)
        else:
            batch = result.document().stream
            if batch is not None:
                print(for_terminal(f"batch {batch.number} (__tmst {batch.tmst}): {_read(batch)}"))
            print(for_terminal_lines(to_text(result)), flush=True)

    def _write_report(self, result: RunResult) -> None:
        """The report of the batches so far: the history's when the stream stores one (earlier
        starts too), else this start's."""
        from ..outputs.html import Report  # altair loads only for a stream with a report
        from ..store.history import HistoryStore

        self.documents = [*self.documents, result.document()][-REPORT_BATCHES:]
        history = self.args.history
        stored = HistoryStore(history).documents(result.name, REPORT_BATCHES) if history else []
        write_whole(Report(stored or self.documents).html(), self.args.html)

    def _lineage(self, result: RunResult) -> None:
        """The batch as a run of its own: START at its time, then COMPLETE or FAIL. A collector not
        reached is warned about and sets the exit code; the batch's events count as done."""
        document = result.document()
        lineage = self.lineage.batch(document.stream.number) if document.stream is not None else self.lineage
        lineage.start(datetime.fromisoformat(document.started))
        lineage.end(document, gate_passes(result, False))

    def _alert(self, result: RunResult) -> None:
        """Alert on a changed verdict; a target not reached is warned about and sets the exit
        code, and the batch's alerts count as done (the next start does not send them again)."""
        if self.args.history is not None:
            failures = send_alerts(self.alerts, result, self.args.history, self.report)
        else:
            failures = send_on_change(self.alerts, result, self.previous, self.report)
            self.previous = [*self.previous, result.document()][-needs_incidents(self.alerts.targets) :]
        warn_not_sent(failures, gate_passes(result, False))
        self.not_sent += failures


def _file_writer(path: str, render: Callable[[RunResult, bool], str]) -> Callable[[RunResult], None]:
    """An output that rewrites ``path`` with a batch's ``render`` (as gryph run writes it, no secret shown)."""
    return lambda result: write_whole(redact(render(result, False)), path)


def _read(batch: StreamBatch) -> str:
    """What each source read: ``clicks 3 rows, 1 malformed, lag 0``."""
    return "; ".join(
        f"{name} {counted(read.rows, 'row')}"
        + (f", {read.malformed} malformed" if read.malformed else "")
        + (f", {counted(len(read.linked_outside), 'link')} out of its folder skipped" if read.linked_outside else "")
        + f", lag {read.lag}"
        for name, read in batch.sources.items()
    )


def _trigger(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = duration_ms(text)
    except ValueError as error:
        raise InvalidInput("BAD_OPTION", f"--trigger {error}", text=text, hint="e.g. --trigger 30s") from None
    if not value:
        raise InvalidInput("BAD_OPTION", "--trigger is a time of at least 1ms", text=text, hint="e.g. --trigger 30s")
    return value


def _status(args: argparse.Namespace) -> int:
    from ..streaming.stream_control import stream_status

    print(for_terminal_lines(stream_status(args.suite, args.state)))
    return 0


def _reset(args: argparse.Namespace) -> int:
    from ..streaming.stream_control import reset_stream

    if not args.yes:
        print("reset forgets where the stream stands: add --yes to do it", file=sys.stderr)
        return 2
    print(for_terminal_lines(reset_stream(args.suite, args.state, args.to or "earliest")))
    return 0
