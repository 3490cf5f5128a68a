"""``gryph stream``: a suite run one micro-batch at a time over its kafka and folder sources.

The client decides each batch (batch_inputs.py), stamps it with its time (``__tmst``), runs the
suite's one compiled plan over it on the engine — the same compiler and executors as a batch
run — and commits the sources' positions with the batch's result (stream_state.py), then
publishes it to each output (outbox.py): history (one run per batch, keyed by stream and batch
number), then the caller's (the printed line, the report, alerts).

A suite's quarantine and valid outputs (or ``quarantine_to``) get a folder per batch,
``.../quarantine/batch=N/``, swapped in (quarantine.py) before the batch commits: a batch killed
before its commit runs again over the same input and its folder is replaced, so each batch's rows
are there once, whatever step the stream was killed at.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gryph.compiler.checks.verdict import CheckOutcome
from gryph.compiler.engine import Engine
from gryph.compiler.errors import GryphError, InvalidInput, Location
from gryph.compiler.lowering import Options
from gryph.compiler.lowering.row_failures import Split
from gryph.compiler.rule_kinds import metric_name
from gryph.compiler.safe_names import safe_file_name
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.suites.kept_reads import kept_readers, longest_windows, reading_kept
from gryph.compiler.suites.kept_rows import KeptRole, KeptRows
from gryph.compiler.suites.suite import Suite

from ..results.document import Check, ResultDocument
from ..results.run_result import RunResult
from ..run import quarantine, quarantine_database
from ..run.runner import load_suite, opened_engine, run_loaded
from ..store.history import HistoryStore
from ..store.stream_state import COMMITTED, INTENT, Batch, BatchInput, Owner, StreamState
from .accuracy_retries import Settled, accuracy_row, misses_by_time, misses_export, misses_file, settle
from .batch_inputs import bounded_suite, next_input
from .failpoints import reached
from .kafka_stream import one_connection
from .key_windows import batch_number, rows_file
from .outbox import Output, publish
from .replayed_inputs import check_replayed
from .stream_source import stream_sources

DEFAULT_TRIGGER_MS = 30_000
STATE_FOLDER = Path(".gryph") / "streams"


def default_state(suite: Suite) -> Path:
    return STATE_FOLDER / f"{safe_file_name(suite.name)}.duckdb"


def open_state(suite: Suite, state: str | Path | None, adopt: bool = False) -> StreamState:
    """The stream state of ``suite`` (``state``, else the default), leased: the state of another
    suite file is refused (STREAM_OTHER_SUITE) unless ``adopt`` (the suite file moved)."""
    owner = None
    if suite.file is not None and Path(suite.file).is_file():  # a suite given as text has no file
        sources = "; ".join(f"{name} = {suite.sources[name].describe()}" for name in suite.streams)
        owner = Owner(str(Path(suite.file).resolve()), sources)
    return StreamState(state or default_state(suite), suite.name, owner, adopt)


def stream_suite(source: str | Path | Suite) -> Suite:
    """The suite of a stream: one that reads at least one kafka or folder source."""
    suite = load_suite(source)
    if not suite.streams:
        raise InvalidInput(
            "NOT_A_STREAM",
            f"suite {suite.name!r} reads no kafka or folder source: there is nothing to stream",
            location=Location(suite.file, 1, 1),
            hint='run it with gryph run, or declare a source such as folder("incoming/", format = "json", ...)',
        )
    return suite


def stream(
    source: str | Path | Suite,
    engine: Engine | str = "duckdb",
    *,
    remote: str | None = None,
    trigger_ms: int | None = None,
    once: bool = False,
    available_now: bool = False,
    max_batches: int | None = None,
    state: str | Path | None = None,
    cluster_state: str | None = None,
    history: str | Path | None = None,
    record_sample: int = 20,
    adopt_state: bool = False,
    outputs: Sequence[Output] = (),
    quarantine_to: str | None = None,
) -> Iterator[RunResult]:
    """Run ``source``'s batches and yield each committed batch's result, in order.

    ``once``: at most one batch (a batch a crash left half-done is that one). ``available_now``: what is there now, in as many batches as the
    caps need, then stop. Otherwise a batch every ``trigger_ms`` (the suite's ``stream every``),
    batches never overlapping, until ``max_batches`` or the caller stops iterating. A batch with
    nothing new is not run, nor one that read no rows (only aborted transactions or their
    markers). A batch left half-done by a crash runs first, with its time and input; one
    committed but not yet published to every output (``history``, then ``outputs``) is published
    to the rest first.
    ``cluster_state``: where the engine keeps what a stream leaves there (the misses accuracy
    rules match again); a folder of the cluster for a remote Spark, by default beside ``state``.
    ``adopt_state``: take over the state of another suite file (this one, moved).
    ``quarantine_to``: a folder for each batch's failing and valid rows, as ``gryph run``'s
    (else the suite's quarantine and valid statements say where).
    """
    suite = stream_suite(source)
    store = HistoryStore(history) if history is not None else None
    if store is not None:
        store.check_writable()
    trigger = trigger_ms or suite.stream_every_ms or DEFAULT_TRIGGER_MS
    quarantine_database.refuse_in_stream(quarantine_database.in_database(suite, quarantine_to))
    folders = quarantine.output_folders(suite, quarantine_to)
    if folders:  # before any batch
        quarantine.check_targets(quarantine_to, folders, Location(suite.file))
    tables = quarantine.table_outputs(suite, quarantine_to)  # reached and writable before any batch
    stream_state = open_state(suite, state, adopt_state)
    kept = cluster_state or f"{stream_state.path}.pending"
    try:
        quarantine.finish_pending(folders)  # under the state's lease: no other client swaps these
        split = _Split(folders, quarantine.delta_outputs(suite, quarantine_to), tables)
        with opened_engine(engine, remote) as active:
            runner = _BatchRunner(suite, active, stream_state, store, record_sample, kept, outputs, split)
            limit = 1 if once else max_batches
            done = 0
            for recovered in runner.recover():
                done += 1
                yield recovered
            while limit is None or done < limit:
                tick = time.monotonic()
                result = runner.next_batch()
                if result is not None:
                    done += 1
                    yield result
                if once or (available_now and result is None):
                    return
                if not available_now:
                    time.sleep(max(0.0, tick + trigger / 1000 - time.monotonic()))
    finally:
        stream_state.close()


@dataclass(frozen=True)
class _Split:
    """Where a stream's batches write their sources' failing and valid rows (quarantine.py)."""

    folders: dict[str, dict[str, Path]]
    delta: dict[str, frozenset[str]]
    tables: dict[str, dict[str, SourceSpec]]  # the outputs committed into Iceberg and PostgreSQL tables

    def staged(self, suite: Suite, engine: str, batch: Batch) -> tuple[str, list[quarantine.Staged], tuple[Split, ...]]:
        """A run id for the batch's run, its outputs as that run stages them, and the splits
        that write them."""
        run_id = quarantine.new_run_id()
        if not self.folders:
            return run_id, [], ()
        # the batch's exact time: a Delta output's data_time partition, one per batch
        moment = dt.datetime.fromtimestamp(batch.tmst / 1000, dt.timezone.utc)
        shown = moment.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"
        staged, splits = quarantine.plan_outputs(
            self.folders,
            (suite.name, run_id, shown, engine),
            engine,
            self.delta,
            key=f"batch={batch.number}",
            tables_of=self.tables,
        )
        return run_id, staged, splits


class _BatchRunner:
    """One stream's batches on an open engine."""

    def __init__(
        self,
        suite: Suite,
        active: Engine,
        state: StreamState,
        store: HistoryStore | None,
        record_sample: int,
        kept: str,
        outputs: Sequence[Output],
        split: _Split,
    ) -> None:
        self.suite, self.active, self.state, self.store = suite, active, state, store
        self.outputs, self.split = outputs, split
        self.record_sample = record_sample
        self.kept = kept
        self.sources = stream_sources(suite)
        self.readers = kept_readers(suite)
        self.retries = [reader for reader in self.readers if reader.read.role is KeptRole.MISSES]
        self.kept_windows = longest_windows(self.readers, KeptRole.EARLIER)

    def recover(self) -> Iterator[RunResult]:
        """Publish what was committed but not published; run again a batch that was not committed."""
        for batch in self.state.batches(COMMITTED):
            yield self._publish(batch, _StoredRun(batch.document))
        last = self.state.last_batch()
        if last is not None and last.status == INTENT:
            check_replayed(self.suite, last, self.state.path, self._misses_before(last), self._rows_file)
            _, lag = next_input(self.sources, self.state)
            result = self._run(last, lag)
            if result is not None:
                yield result

    def _misses_before(self, batch: Batch) -> dict[str, str | None]:
        """Per retrying rule, the misses file the batch before ``batch`` left (None for the first)."""
        before = self._folder(batch.number - 1) if batch.number > 1 else None
        return {r.rule.name: None if before is None else misses_file(before, r) for r in self.retries}

    def _rows_file(self, source: str, number: int) -> str:
        return rows_file(self.kept, source, number)

    def next_batch(self) -> RunResult | None:
        """The next batch's result; None when nothing new is there (a batch that read no rows is
        skipped, and the one after it tried)."""
        while True:
            with one_connection(self.sources.values()):
                batch_input, lag = next_input(self.sources, self.state)
                if batch_input.empty:
                    return None
                result = self._run(self._intent(batch_input), lag)
            if result is not None:
                return result

    def _intent(self, batch_input: BatchInput) -> Batch:
        """The batch that reads ``batch_input``, recorded before it reads anything."""
        tmst = max(int(time.time() * 1000), self._after_last())
        last = self.state.last_batch()
        for retrying in self.retries:  # the misses the last batch left, still inside the retry window
            if last is not None:
                batch_input.pending[retrying.rule.name] = misses_file(self._folder(last.number), retrying)
            batch_input.cutoff[retrying.rule.name] = retrying.since(tmst)
        for source, window in self.kept_windows.items():  # earlier batches' rows the windows read
            numbers = self.state.batches_since(tmst - window)
            batch_input.history[source] = [rows_file(self.kept, source, number) for number in numbers]
        batch = self.state.write_intent(tmst, batch_input)
        reached("intent")
        return batch

    def _after_last(self) -> int:
        """Batch times only grow, even when the clock steps back: one ``__tmst`` per batch."""
        last = self.state.last_batch()
        return 0 if last is None else last.tmst + 1

    def _folder(self, number: int) -> str:
        """Where batch ``number`` leaves its accuracy rules' misses, on the engine's side."""
        return f"{self.kept}/batch-{number}"

    def _run(self, batch: Batch, lag: dict[str, int]) -> RunResult | None:
        """Run the batch of ``batch``'s intent, then skip it (it read nothing) or commit it and publish."""
        present, left_out = self._readable(batch)
        kept = self._kept(batch)
        bounded = reading_kept(bounded_suite(self.suite, self.sources, present, batch.tmst), self.readers, kept)
        settled: dict[str, Settled] = {}
        started = dt.datetime.fromtimestamp(batch.tmst / 1000, dt.timezone.utc)
        run_id, staged, splits = self.split.staged(self.suite, self.active.name, batch)
        try:
            result = run_loaded(
                bounded,
                self.active,
                started,
                replace(self._options(batch), splits=splits),
                self.store,
                settle=lambda metrics: settled.update(self._settled(batch, kept, metrics)),
                # each batch, as its outputs are: a Delta table another writer changed is refused before the scan
                before_scan=lambda schemas: quarantine.check_output_tables(staged, schemas, Location(self.suite.file)),
            )
        except GryphError as error:
            error.message += f" (batch {batch.number}; nothing was committed: the next start runs it again)"
            raise
        self._shape(result, batch, lag, left_out, settled)
        reached("computed")
        if all(self.sources[name].read_nothing(batch.input, result) for name in batch.input.sources):
            quarantine.discard(staged)
            self.state.skip(batch)
            return None
        if staged:  # swapped in before the commit: a batch killed between runs again and replaces them
            committed = quarantine.publish(staged, run_id)
            result.outputs = quarantine.described(staged, result.outputs, run_id, committed)
        self.state.commit(batch, result.to_dict(), {name: done.times for name, done in settled.items()})
        reached("committed")
        self._forget(batch)
        return self._publish(batch, result)

    def _readable(self, batch: Batch) -> tuple[BatchInput, dict[str, dict[str, list[str]]]]:
        """What the engine reads of the batch's input, and per source what it leaves out (and names)."""
        present, left_out = replace(batch.input, kafka={}, files={}), {}
        for name in batch.input.sources:
            source = self.sources[name]
            read, left_out[name] = source.readable(getattr(batch.input, source.part)[name])
            getattr(present, source.part)[name] = list(read)
        return present, left_out

    def _kept(self, batch: Batch) -> list[KeptRows]:
        """What the stream kept that the batch reads again: the misses the batch before it left
        (when it left a file), the rows of the earlier batches inside the windows."""
        misses = [
            KeptRows(rule, KeptRole.MISSES, (path,))
            for rule, path in batch.input.pending.items()
            if os.path.exists(path)
        ]
        return misses + [KeptRows(kept, KeptRole.EARLIER, tuple(files)) for kept, files in batch.input.history.items()]

    def _options(self, batch: Batch) -> Options:
        return Options(
            record_sample=self.record_sample,
            now_ms=batch.tmst,
            count_rows=True,
            streams=self.suite.streams,
            records_to=self._folder(batch.number) if self.retries else None,
            export_only=frozenset(misses_export(retrying) for retrying in self.retries),
            keep_rows=tuple((source, rows_file(self.kept, source, batch.number)) for source in self.kept_windows),
        )

    def _settled(self, batch: Batch, kept: list[KeptRows], metrics: dict) -> dict[str, Settled]:
        """Each retrying accuracy rule's result over the batches of its window, this one's written
        into ``metrics`` (settle() in run_loaded, before the checks judge them)."""
        settled = {}
        fed = {rows.of for rows in kept if rows.role is KeptRole.MISSES}  # rules that read earlier misses
        for retrying in self.retries:
            name = retrying.rule.name
            # the earlier batches whose misses the rule read: those inside its window, as the compiler reads them
            earlier = self.state.accuracy_times(name, retrying.since(batch.tmst)) if name in fed else {}
            earlier.pop(batch.tmst, None)
            misses = misses_by_time(self.active, misses_file(self._folder(batch.number), retrying))
            # a Griffin job's metrics are one map (its metric wrapper), a suite's one per rule
            written = metrics if self.suite.griffin else metrics[name]
            judged = int(written[metric_name("total", retrying.rule.details)])
            settled[name] = settle(retrying, judged, earlier, misses, batch.tmst)
            written.update(accuracy_row(retrying.rule, *settled[name].times[batch.tmst]))
        return settled

    def _shape(
        self,
        result: RunResult,
        batch: Batch,
        lag: dict[str, int],
        left_out: dict[str, dict[str, list[str]]],
        settled: dict[str, Settled],
    ) -> None:
        """The batch's result as a stream shows it: its ``stream`` part, without the stream's own state."""
        for name in settled:  # the misses' file is the stream's own state, not a user output
            result.records.get(name, {}).pop("written_to", None)
        # the rows a stream reads again (misses, earlier batches) are its own, not the user's sources
        result.schemas = {name: columns for name, columns in result.schemas.items() if name in self.suite.sources}
        sources = {
            name: self.sources[name].describe(batch.input, result, lag.get(name, 0), left_out[name])
            for name in batch.input.sources
        }
        result.stream = {"batch": batch.number, "tmst": batch.tmst, "sources": sources}
        updates = {name: done.updates for name, done in settled.items() if done.updates}
        if updates:
            result.stream["updates"] = updates

    def _forget(self, batch: Batch) -> None:
        """What no later batch reads again: misses of the batches before this one, rows of the
        batches older than every window. A local folder only: a remote cluster's is its own to clean."""
        root = Path(self.kept)
        if "://" in self.kept or not root.is_dir():
            return
        for folder in root.glob("batch-*"):
            if batch_number(folder) < batch.number:
                shutil.rmtree(folder, ignore_errors=True)
        for source, window in self.kept_windows.items():
            kept = set(self.state.batches_since(batch.tmst - window))
            for file in Path(rows_file(self.kept, source, 0)).parent.glob("batch-*.parquet"):
                if batch_number(file) in kept:
                    continue
                if file.is_dir():  # Spark writes a folder of parts, DuckDB one file
                    shutil.rmtree(file, ignore_errors=True)
                else:
                    file.unlink(missing_ok=True)

    def _publish(self, batch: Batch, result: RunResult) -> RunResult:
        if self.store is None:
            return publish(self.state, batch, result, self.outputs)
        # the batch's run in the history, stored or about to be (alerts compare with the run before it)
        result.run_id = f"{self.state.stream_id}-{batch.number}"
        return publish(
            self.state, batch, result, [Output("history", lambda done: self._record(batch, done)), *self.outputs]
        )

    def _record(self, batch: Batch, result: RunResult) -> None:
        assert self.store is not None
        started = dt.datetime.fromtimestamp(batch.tmst / 1000, dt.timezone.utc)
        self.store.record(result.document(), started, result.measures, run_id=result.run_id)


def _stored_check(check: Check) -> CheckOutcome:
    """A check's outcome from a stored document (its skip reason and failing rows are not kept)."""
    return CheckOutcome(
        name=check.name,
        expression=check.expression,
        passed=check.status == "PASS",
        warn=check.status == "WARN",
        values=dict(check.values),
        error=check.error,
        anomaly=check.anomaly,
        watches=None if check.watches is None else check.watches.as_json(),
        reads=[reference.as_json() for reference in check.reads],
        bounds=[bound.as_json() for bound in check.bounds],
    )


class _StoredRun(RunResult):
    """A committed batch read back from the state to publish it again after a crash: its stored
    document is the result, its checks as JUnit, Markdown and the text report show them."""

    def __init__(self, document: ResultDocument | None) -> None:
        if document is None:
            raise ValueError("a committed batch holds its result document")  # state_rows reads one
        super().__init__(
            name=document.name,
            engine=document.engine,
            started=document.started,
            duration_seconds=document.duration_seconds,
            metrics=dict(document.metrics),
            records=dict(document.source.get("records") or {}),
            measures=dict(document.measures),
            passed=document.passed,
            policy=document.policy,
            stream=document.source.get("stream"),
            checks=[_stored_check(check) for check in document.checks],
        )
        self._stored = document

    def to_dict(self) -> dict:
        return dict(self._stored.source)

    def document(self, redacted: bool = True) -> ResultDocument:
        return self._stored  # redacted as it was stored
