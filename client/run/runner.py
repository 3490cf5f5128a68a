"""Running a suite: load it, learn the schemas, compile, execute on an engine, finish metrics."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TypeVar, cast

from gryph.compiler.analysis import CheckedSuite, check_suite
from gryph.compiler.analysis.sql_reads import check_suite_sql
from gryph.compiler.checks.check_functions import Clock, NoHistory
from gryph.compiler.checks.schema_checks import columns_of
from gryph.compiler.checks.segment_checks import segmented
from gryph.compiler.checks.verdict import judge
from gryph.compiler.compile import CompiledSuite, compile_suite, view_plan
from gryph.compiler.contracts.contract_files import is_contract
from gryph.compiler.engine import Engine
from gryph.compiler.errors import EngineError, ErrorList, GryphError, InvalidInput, InvalidInputs, Location
from gryph.compiler.griffin.json_frames import json_documents_plan, json_view_schema
from gryph.compiler.lowering import Options
from gryph.compiler.lowering.query_collector import Results, ValueRef
from gryph.compiler.plan import format_plan
from gryph.compiler.plan.data_types import INTEGER, Column, Schema
from gryph.compiler.results import Failed, ResultRow, RuleResult, merge_writes
from gryph.compiler.sources.in_memory_tables import frame_to_arrow
from gryph.compiler.sources.lake_tables import TableLog, is_lake_table
from gryph.compiler.sources.read_as_text import read_as_text, reading_plan, suspects, text_reading
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import TMST, is_stream, stream_schema
from gryph.compiler.sources.typed_text import MalformedCounts, metrics_name, source_metrics, typed_sources
from gryph.compiler.suites.data_times import parse_data_time
from gryph.compiler.suites.data_times import shown as shown_data_time
from gryph.compiler.suites.native_suites import parse_suite
from gryph.compiler.suites.suite import RuleSpec, Suite
from gryph.compiler.suites.suite_variables import check_all_used, substitute, take_data_time
from gryph.compiler.support.text_files import read_utf8

from ..outputs.readable_values import counted
from ..results.run_result import RunResult
from ..store.history import HistoryStore
from ..store.history_writes import HistoryWriteError
from . import quarantine, quarantine_database
from .engines import OnDemandEngine, open_engine
from .failing_checks import attach_rule_records, fetch_failing_rows
from .progress import Phase, no_progress
from .refusals import refuse_plan, refuse_rules


def load_suite(
    source: str | Path | Suite,
    frames: Mapping[str, object] | None = None,
    variables: Mapping[str, str] | None = None,
    server: str | None = None,
) -> Suite:
    """A suite from a ``.dq`` file, a Griffin job config (``.json``), an ODCS data contract (YAML,
    read from its server ``server``, default its first), suite text, or as is.

    ``frames`` are in-memory tables (Polars, Arrow, pandas) that rules may read by name;
    they replace declared sources of the same name. ``variables`` give a native suite's
    ``${name}`` their values (``suite_variables``); each must be used.
    """
    names = tuple(frames or ())
    values = dict(variables or {})
    if isinstance(source, Suite):
        suite = source
        check_all_used(values, frozenset(), suite.file)
    elif _is_path(source):
        path = Path(source)
        if path.suffix == ".json":
            from gryph.compiler.griffin import load_griffin_job

            suite = load_griffin_job(path)
            check_all_used(values, frozenset(), str(path))
        elif is_contract(path):
            from gryph.compiler.contracts.contract_suite import load_contract  # YAML and JSON Schema: only here

            suite = load_contract(path, server)
            check_all_used(values, frozenset(), str(path))  # a contract's {object} is its own, never a --var
        else:
            suite = _parse_native(read_utf8(path), str(path), path.parent, names, values)
    else:
        suite = _parse_native(str(source), None, None, names, values)
    if frames:
        sources = dict(suite.sources)
        for name, frame in frames.items():
            sources[name] = SourceSpec(name, "frame", frame=_arrow(name, frame))
        suite = replace(suite, sources=sources)
    return suite


def _parse_native(
    text: str, file: str | None, base: Path | None, names: tuple[str, ...], values: dict[str, str]
) -> Suite:
    """A native suite's text with its ``${name}`` given values and its ``data_time`` read, parsed."""
    substituted = substitute(text, values, file)
    check_all_used(values, substituted.used, file)
    text, data_time, where = take_data_time(substituted.text, file)
    suite = parse_suite(text, file, base, known_sources=names)
    if data_time is not None:  # refused here, at its line, when it is no time
        parse_data_time(data_time, "data_time", where or Location(file))
    return replace(suite, data_time=data_time)


def _arrow(name: str, frame: object):
    """The frame of source ``name`` as Arrow, checked before anything runs."""
    try:
        return frame_to_arrow(frame)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(
            "BAD_FRAME",
            f"cannot read the {type(frame).__name__} given for source {name!r} as a table ({exc})",
            hint="pass a Polars, pandas or Arrow table",
        ) from None


def _is_path(source: str | Path) -> bool:
    """A path names a file; anything with a newline, or naming no file, is suite text."""
    if isinstance(source, Path):
        return True
    text = source.strip()
    if "\n" in text:
        return False
    try:
        return text.endswith((".dq", ".json", ".yaml", ".yml")) or Path(text).is_file()
    except OSError:  # too long or otherwise impossible as a file name: it is suite text
        return False


def source_schemas(suite: Suite, engine: Engine) -> dict:
    """The schema of every source: as declared, else asked of the engine (no data scan)."""
    schemas = {}
    for name, spec in suite.sources.items():
        with _located(spec.location):
            if is_stream(spec):  # whole or a batch of it: the columns it declares, and those gryph adds
                schemas[name] = stream_schema(spec)
            elif spec.stamp is not None:  # a batch of a folder: its files, with the batch time
                read = _declared_or_read(spec, engine)  # an engine's reading has the time already
                schemas[name] = read if TMST in read else Schema((*read.columns, Column(TMST, INTEGER)))
            else:
                schemas[name] = _declared_or_read(spec, engine)
    views: tuple = ()
    for view in suite.views:  # in order: a view's SQL may depend on the schemas before it
        with _located(view.location):
            if view.json_of is not None:
                rows = engine.run(json_documents_plan(view, views, schemas), suite.sources)
                schemas[view.name] = json_view_schema(view, schemas, rows)
                views += (view_plan(suite, view, schemas),)
                continue
            views += (view_plan(suite, view, schemas),)
            schemas[view.name] = engine.schema_of_view(views, suite.sources)
    return schemas


def _declared_or_read(spec: SourceSpec, engine: Engine) -> Schema:
    return spec.schema if spec.schema is not None and spec.kind.family != "memory" else engine.schema_of(spec)


def execute(
    compiled: CompiledSuite,
    engine: Engine,
    sources: Mapping[str, SourceSpec],
    phase: Callable[[str], None] = lambda _: None,
) -> dict[str, list[ResultRow]]:
    """Run a compiled suite's plans on an engine, the only place one runs: record samples only
    where records exist (in one step where the engine finds that cheaper: a sample of no records
    has no rows, so the results are the same), then the Spark SQL rules that read other rules'
    results. ``phase`` hears what runs next (a progress display)."""
    one_step = bool(compiled.conditions) and engine.one_step(compiled.plan, sources)
    first = compiled.plan if one_step else compiled.first_plan()
    phase(
        f"reading {counted(len(compiled.suite.sources), 'source')}: {counted(len(first.queries), 'statement')} on {engine.name}"
    )
    rows = engine.run(first, sources)
    second = None if one_step else compiled.second_plan(rows)
    if second is not None:
        phase(f"fetching record samples: {counted(len(second.queries), 'statement')}")
        rows.update(engine.run(second, sources))
    third = compiled.third_plan(rows)
    if third is not None:
        phase("running the Spark SQL rules that read other rules' results")
        rows.update(engine.run(third, sources))
    return rows


@contextlib.contextmanager
def _located(location):
    """Errors about one source or view point at its declaration when they know no place of their own."""
    try:
        yield
    except GryphError as error:
        if location is not None and error.location.line is None:
            error.location = location
        raise


def compile_for(suite: Suite, engine: Engine, options: Options | None = None) -> CompiledSuite:
    """Check the suite against the engine's view of its sources and lower it."""
    schemas = _schemas_for(suite, engine)
    return _blaming_data(lambda: compile_suite(suite, schemas, options), suite, schemas, engine)


def check_for(suite: Suite, engine: Engine) -> CheckedSuite:
    """Check the suite against the engine's view of its sources (the check pass only)."""
    schemas = _schemas_for(suite, engine)
    return _blaming_data(lambda: check_suite(suite, schemas), suite, schemas, engine)


_Checked = TypeVar("_Checked")


def _blaming_data(
    checking: Callable[[], _Checked], suite: Suite, schemas: dict[str, Schema], engine: Engine
) -> _Checked:
    """``checking()``, whose type error over a column that a few values made text is the data's
    error, at its source (read_as_text.py): the values are looked at only after such an error."""
    try:
        return checking()
    except InvalidInput as error:
        for suspect in suspects(error, suite.sources, schemas):
            spec, schema = suite.sources[suspect.source], schemas[suspect.source]
            with _located(spec.location):
                rows = engine.run(reading_plan(suspect.source, schema, [suspect.column]), suite.sources)
            found = read_as_text(suspect, spec, schema, text_reading(0, rows), error)
            if found is not None:
                raise found from None
        raise


def _schemas_for(suite: Suite, engine: Engine) -> dict[str, Schema]:
    """The schemas of a suite's sources, for a suite that has something to check."""
    # checks alone may read what the sources count of themselves (metrics["source:orders"])
    if not suite.rules and not suite.measures and not suite.schemas and not suite.checks:
        raise InvalidInput(
            "EMPTY_SUITE",
            f"suite {suite.name!r} has no rules, no measures, no checks and no schema statements",
            location=Location(suite.file, 1, 1),
            hint="add a rule or a measure",
        )
    check_suite_sql(suite)  # before any engine sees the suite's SQL (a view's runs to learn its schema)
    return source_schemas(suite, engine)


def run(
    source: str | Path | Suite,
    engine: Engine | str = "duckdb",
    *,
    frames=None,
    remote: str | None = None,
    record_sample: int = 20,
    records_to: str | None = None,
    history: str | Path | None = None,
    phase: Phase = no_progress,
    variables: Mapping[str, str] | None = None,
    data_time: str | None = None,
    quarantine_to: str | None = None,
) -> RunResult:
    """Run a suite and return its metrics. ``engine`` is an Engine or a name (duckdb, spark).

    ``records_to`` writes every record output in full where the engine runs: a folder of
    parquet files, or ``table:PREFIX`` for tables named PREFIX + rule__output. ``history`` is a
    history file: checks read earlier runs from it and the run is stored in it (one that can never
    be is refused before the scan; a write that fails after it raises ``HistoryWriteError``, whose
    ``result`` is the run). ``phase`` hears
    each step as it starts (a progress display). ``variables`` give the suite's ``${name}`` their
    values; ``data_time`` (else the suite's ``data_time`` statement) is the moment the data is
    about: history functions read the runs before it, and a run of the same data time replaces it.
    ``quarantine_to`` is a folder where each source's rows that fail a row-level rule, and the
    others, are written by the engine from the run's own plan, replacing that data time's
    (quarantine.py); without it, the suite's ``quarantine`` and ``valid`` statements say where.
    """
    suite = load_suite(source, frames, variables)
    keyed = run_data_time(suite, data_time)
    refuse_streams(suite)
    store = HistoryStore(history) if history is not None else None
    if store is not None:
        store.check_writable()  # before the scan: a history that can never be written fails first
    folders = quarantine.output_folders(suite, quarantine_to)
    in_database = quarantine_database.in_database(suite, quarantine_to)
    if folders:
        quarantine.check_targets(quarantine_to, folders, Location(suite.file))
        quarantine.finish_pending(folders)
    tables = quarantine.table_outputs(suite, quarantine_to)
    quarantine_database.refuse_engine(engine if isinstance(engine, str) else engine.name, in_database)
    with opened_engine(engine, remote) as active:
        quarantine_database.open_for_writes(active, in_database)  # before any scan
        started = dt.datetime.now(dt.timezone.utc)
        options = Options(
            record_sample=record_sample,
            now_ms=int(started.timestamp() * 1000),
            records_to=records_to,
            count_rows=True,
            data_time_ms=None if keyed is None else int(keyed.timestamp() * 1000),
        )
        staged: list[quarantine.Staged] = []
        if folders or in_database:
            run_id = quarantine.new_run_id()
            shown = None if keyed is None else shown_data_time(keyed)
            staged, options.splits = quarantine.plan_outputs(
                folders,
                (suite.name, run_id, shown, active.name),
                active.name,
                quarantine.delta_outputs(suite, quarantine_to),
                tables_of=tables,
                in_database=in_database,
            )
        with quarantine_database.located(in_database):
            result = run_loaded(
                suite,
                active,
                started,
                options,
                store,
                phase,
                data_time=keyed,
                before_scan=lambda schemas: quarantine.check_output_tables(staged, schemas, Location(suite.file)),
            )
        if staged:
            phase("publishing the quarantine and valid rows")
            with _located(Location(suite.file)):
                committed = quarantine.publish(staged, run_id)
            result.outputs = quarantine.described(staged, result.outputs, run_id, committed)
        if store is not None:
            phase("storing the run in the history")
            try:
                result.run_id = store.record(result.document(), started, result.measures, data_time=keyed)
            except HistoryWriteError as error:
                error.result = result  # the run is done: its caller still writes its outputs
                raise
        return result


def run_loaded(
    suite: Suite,
    active: Engine,
    started: dt.datetime,
    options: Options,
    store: HistoryStore | None,
    phase: Phase = no_progress,
    settle: Callable[[dict], None] | None = None,
    data_time: dt.datetime | None = None,
    before_scan: Callable[[dict[str, Schema]], None] | None = None,
) -> RunResult:
    """Compile and run a loaded suite on an open engine, judge its checks (reading earlier runs
    from ``store``: those before ``data_time``, else before ``started``), and return the run (not
    stored: the caller stores it where it belongs).
    ``settle`` may change the metrics before the checks read them (a stream's accuracy retries);
    ``before_scan`` hears the sources' schemas once they are learned, before any scan (it checks
    the tables the run will write)."""
    clock = time.perf_counter()
    phase("learning the sources' schemas and compiling the rules")
    schemas = _schemas_for(suite, active)
    compiled = _blaming_data(lambda: compile_suite(suite, schemas, options), suite, schemas, active)
    columns = {name: columns_of(schemas[name]) for name in suite.sources}  # stored: schema_changes reads them
    refuse_plan(compiled, active.capabilities, lambda: check_for(suite, active))
    if before_scan is not None:
        before_scan(schemas)
    counting = MalformedCounts.of(suite.sources)  # run with the suite's queries: no scan of its own
    compiled = replace(
        compiled,
        plan=replace(compiled.plan, queries=compiled.plan.queries + counting.queries),
        # a column's first bad values are fetched, as record samples are, only where it has some
        conditions={**compiled.conditions, **{name: _not_zero(ref) for name, ref in counting.examples.items()}},
    )
    try:
        rows = execute(compiled, active, {**suite.sources, **counting.texts}, phase)
    except GryphError as error:
        if error.location.file is None:  # a failure of the run belongs to the suite that ran (its line kept)
            error.location = replace(error.location, file=suite.file)
        raise
    logs = _table_logs(suite, active)
    malformed_values = counting.report(suite.sources, rows)
    results = compiled.finish(rows)
    measures = compiled.finish_measures(rows)
    metrics = _metrics(suite, results)
    if settle is not None:
        settle(metrics)
    values = {m.name: m.value for m in measures}
    verdict = judge(
        compiled.checks,
        suite.policy,
        values,
        {**metrics, **_source_metrics(suite, malformed_values)},
        Clock(suite.name, data_time or started, store.before(data_time or started) if store else NoHistory(), columns),
        segmented(results, measures),
    )
    with _located(Location(suite.file)):
        fetch_failing_rows(verdict.checks, compiled, values, active, suite.sources, options.record_sample, phase)
    attach_rule_records(verdict.checks, results, suite)
    failed = {r.rule: r.error for r in results if r.error is not None}
    failed.update((m.name, m.value.error) for m in measures if isinstance(m.value, Failed))
    return RunResult(
        name=suite.name,
        engine=active.name,
        started=started.isoformat(timespec="seconds"),
        data_time=None if data_time is None else shown_data_time(data_time),
        duration_seconds=time.perf_counter() - clock,
        metrics=metrics,
        records=_records(results),
        rules=results,
        measures={m.name: m.report() for m in measures},
        measure_segments={m.name: m.segments for m in measures if m.segments is not None},
        checks=verdict.checks,
        passed=verdict.passed and not failed,
        policy=str(suite.policy),
        failed=failed,
        # a source the plan does not count (read only through a join) counted by its table's log
        rows_read={**{n: log.rows for n, log in logs.items() if log.rows is not None}, **compiled.rows_read(rows)},
        malformed=compiled.malformed_read(rows),
        malformed_values=malformed_values,
        rule_kinds={rule.name: {"kind": rule.kind, "details": _scalar_details(rule)} for rule in suite.rules},
        schemas=columns,
        table_logs={name: log.report() for name, log in logs.items()},
        outputs={
            s.source: {"rows": [Results(rows).value(s.quarantined), Results(rows).value(s.valid)]}
            for s in compiled.splits
        },
    )


def _not_zero(count: tuple[str, str]) -> Callable[[Results], bool]:
    """Whether the count at (query, column) is not 0."""
    return lambda results: bool(results.value(ValueRef(*count)))


def _source_metrics(suite: Suite, malformed_values: dict[str, dict]) -> dict[str, object]:
    """What checks read of the sources themselves: ``metrics["source:orders"]["malformed"]``."""
    return {
        metrics_name(name): source_metrics(suite.sources[name], malformed_values.get(name, {}))
        for name in typed_sources(suite.sources)
    }


def _table_logs(suite: Suite, active: Engine) -> dict[str, TableLog]:
    """What the logs of the suite's Delta and Iceberg tables say, where the engine reads them."""
    logs = {}
    for name, spec in suite.sources.items():
        if is_lake_table(spec):
            with _located(spec.location):
                logs[name] = active.table_log(spec)
    return logs


def run_data_time(suite: Suite, given: str | None) -> dt.datetime | None:
    """The run's data time: ``given`` (``--data-time``), else the suite's ``data_time``; None without."""
    if given is not None:
        return parse_data_time(given)
    if suite.data_time is not None:
        return parse_data_time(suite.data_time, "data_time", Location(suite.file))
    return None


def refuse_missing_packages(suite: Suite, engine: Engine) -> None:
    """Raise, at its declaration, a source whose kind needs a package the engine lacks (Delta,
    Iceberg, Kafka, Avro on a Spark server): the engine is asked only when a source needs one."""
    needing = [spec for spec in suite.sources.values() if spec.kind.kind in engine.capabilities.packages]
    missing = engine.missing_packages(needing) if needing else []
    if missing:
        raise missing[0]


def refuse_streams(suite: Suite) -> None:
    """A suite that reads a stream runs a batch at a time, under ``gryph stream``: never whole."""
    if suite.streams:
        spec = suite.sources[suite.streams[0]]
        raise InvalidInput(
            "STREAM_SUITE",
            f"suite {suite.name!r} reads the stream {spec.describe()} (source {spec.name!r}): it runs a micro-batch "
            "at a time",
            location=spec.location or Location(suite.file),
            text=spec.name,
            hint=f"run it with: gryph stream {suite.file or 'SUITE'} (--once for one batch, --available-now for "
            "what is there now)",
        )


def validate(
    source: str | Path | Suite,
    engine: Engine | str = "duckdb",
    *,
    frames=None,
    remote: str | None = None,
    bound_streams: Callable[[Suite], Suite] | None = None,
    variables: Mapping[str, str] | None = None,
    server: str | None = None,
) -> CheckedSuite:
    """Parse and check names and types against the sources' schemas, without scanning data (and
    without building a plan: the check pass only), and the rules against what the engine declares
    it refuses. An engine given by name opens only if a schema must be asked of it. Every error
    found is raised (up to 20): the statements of a suite that do not parse or name what does not
    exist are left out, and the others still checked. A suite of streams is checked against a
    batch of them, which ``bound_streams`` makes (the streaming package's, which sits above this
    one: ``gryph.client.validate`` passes it)."""
    errors = ErrorList()
    try:
        suite = load_suite(source, frames, variables, server)
    except InvalidInputs as found:
        if found.partial is None:
            raise
        errors.add(found)
        suite = found.partial
    if suite.streams and bound_streams is not None:  # checked against a batch of it (no batch is run)
        suite = bound_streams(suite)
    with opened_engine(engine, remote, on_demand=True) as active:
        refuse_missing_packages(suite, active)
        try:
            checked = check_for(suite, active)
        except InvalidInput as found:
            if not errors.errors:
                raise
            if found.code != "EMPTY_SUITE":  # nothing left to check once the statements in error are out
                errors.add(found)
        except EngineError:
            if not errors.errors:
                raise  # else the errors in the text come first: the engine is asked again once they are fixed
        errors.raise_any()
        refuse_rules(checked, active.capabilities)
        return checked


def compile_source(
    source: str | Path | Suite,
    engine: Engine | str = "duckdb",
    *,
    frames: Mapping[str, object] | None = None,
    remote: str | None = None,
    variables: Mapping[str, str] | None = None,
    server: str | None = None,
) -> CompiledSuite:
    """Check a suite and lower it to its plan, without scanning data."""
    suite = load_suite(source, frames, variables, server)
    with opened_engine(engine, remote) as active:
        return compile_for(suite, active)


@contextlib.contextmanager
def opened_engine(engine: Engine | str, remote: str | None, on_demand: bool = False):
    """The engine to use: opened (and closed after) when given by name, else the caller's;
    ``on_demand``: opened at its first use only."""
    if not isinstance(engine, str):
        yield engine
        return
    active = cast(Engine, OnDemandEngine(engine, remote)) if on_demand else open_engine(engine, remote)
    try:
        yield active
    finally:
        active.close()


def explain(
    source: str | Path | Suite,
    engine: Engine | str = "duckdb",
    *,
    frames=None,
    remote: str | None = None,
    variables: Mapping[str, str] | None = None,
    server: str | None = None,
) -> str:
    """The plan of a suite as a stable indented tree, then its pass policy."""
    compiled = compile_source(source, engine, frames=frames, remote=remote, variables=variables, server=server)
    text = format_plan(compiled.plan, frozenset(compiled.conditions))
    if compiled.late is not None:
        text += (
            "then, with the tables of DSL rules their Spark SQL reads "
            f"({', '.join(compiled.suite.rules[i].name for i in compiled.late.inputs)}):\n"
            + format_plan(compiled.late.plan, frozenset())
        )
    return text + f"pass when {compiled.suite.policy}\n"


def _metrics(suite: Suite, results: list[RuleResult]) -> dict:
    if suite.griffin:
        # Griffin's metric wrapper merges every rule's writes into one map
        return merge_writes([write for result in results for write in result.writes])
    # a Griffin measure without a metric output (`metric = false`) has none, as in its job config
    return {result.rule: result.metrics() for result in results if result.writes or result.rows_metric or result.error}


def _scalar_details(rule: RuleSpec) -> dict[str, object]:
    """The rule's one-value details: its renamed metrics (``miss = "miss_count"``), step size, ..."""
    return {
        key: value
        for key, value in rule.details.items()
        if isinstance(value, (str, int, float)) and key not in ("source", "target")
    }


def _records(results: list[RuleResult]) -> dict:
    out = {}
    for result in results:
        for record in result.records:
            out[result.rule] = {"output": record.name, "count": record.count, "sample": record.sample}
            if record.written_to is not None:
                out[result.rule]["written_to"] = record.written_to
    return out
