"""Native suites (``.dq`` files): parse the text and build the compiler's ``Suite``."""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..errors import ErrorList, InvalidInput, Location, did_you_mean, with_article
from ..language.number_literals import number_from_text
from ..language.ruletree.statements import (
    CheckDecl,
    GriffinMeasureDecl,
    MeasureDecl,
    NativeText,
    NotifyDecl,
    OutputDecl,
    PassAlways,
    PassChecks,
    PassCount,
    PassDecl,
    RuleDecl,
    SchemaDecl,
    SourceDecl,
    Statement,
    StreamDecl,
)
from ..rule_kinds import RuleKind, spec_of
from ..source_kinds import source_kind
from ..sources.databases import (
    CONNECTION_OPTIONS,
    NATIVE_MEASURE,
    NATIVE_STATEMENT_TIMEOUT,
    check_database_source,
    is_database,
)
from ..sources.declared_schemas import parse_schema, parse_schema_columns
from ..sources.lake_tables import check_lake_source, iceberg_is_path
from ..sources.null_markers import check_option_lists
from ..sources.source_specs import SourceSpec, check_option_names
from ..sources.stream_sources import check_stream_source
from ..support.gc_pause import without_cyclic_gc
from ..support.text_files import read_utf8
from .drift_sketches import with_drift_sketches
from .griffin_measure_statements import griffin_measure
from .notify_targets import notify_target
from .row_counts import with_row_counts
from .split_outputs import output_table, split_output
from .suite import (
    CheckSpec,
    MeasureSpec,
    NativeSql,
    NotifySpec,
    PassSpec,
    RuleBody,
    RuleSpec,
    SchemaSpec,
    Suite,
    ViewSpec,
)
from .syntax_recovery import parse_recovering


@without_cyclic_gc
def parse_suite(
    text: str, file: str | None = None, base_dir: str | Path | None = None, known_sources: tuple[str, ...] = ()
) -> Suite:
    """Parse a native suite; relative paths are taken from ``base_dir`` (the file's folder).

    ``known_sources`` are sources the caller provides (in-memory frames), so rules may read
    them without a ``source`` statement.
    """
    recovered = parse_recovering(text, file)
    errors = ErrorList(recovered.dropped)
    for error in recovered.errors:
        errors.add(error)
    tree = recovered.tree
    if tree is None:
        errors.raise_any()
        raise InvalidInput(
            "EMPTY_SUITE",
            "the suite declares no sources and no rules",
            location=Location(file, 1, 1),
            text=None,
            hint="add a rule, e.g. completeness contact on users: email",
        )
    base = Path(base_dir) if base_dir is not None else (Path(file).parent if file else Path("."))
    name = tree.name or (Path(file).stem if file else "suite")
    sources: dict[str, SourceSpec] = {}
    rules: list[RuleSpec] = []
    views: list[ViewSpec] = []  # the queries of sparkSQL measures
    measures: list[MeasureSpec] = []
    row_counts: dict[str, MeasureSpec] = {}  # the measures of the checks' rows(...)
    checks: list[CheckSpec] = []
    policy: PassSpec | None = None
    stream_every_ms: int | None = None
    schemas: list[SchemaSpec] = []
    outputs: list[OutputDecl] = []
    notify: list[NotifySpec] = []
    seen: dict[str, set[str]] = {"check": set(), "measure": set(), "rule": set()}
    for statement in tree.statements:
        with errors.statement():  # one statement's error does not hide the next's
            location = statement.location
            if isinstance(statement, SourceDecl):
                try:
                    source = _source(statement, base)
                except InvalidInput:
                    errors.dropped.add(statement.name)  # its readers' "unknown source" would only repeat it
                    raise
                if source.name in sources:
                    raise InvalidInput(
                        "DUPLICATE_SOURCE",
                        f"source {source.name!r} is declared twice",
                        location=location,
                        text=statement.text,
                    )
                sources[source.name] = source
                continue
            if isinstance(statement, CheckDecl):
                counted: dict[str, MeasureSpec] = {}  # its rows(...) and drift(...) measures
                readable = [*sources, *known_sources]
                check = CheckSpec(
                    statement.name,
                    with_drift_sketches(with_row_counts(statement.expr, counted, readable), counted, readable),
                    location,
                    statement.warn,
                    statement.segment,
                )
                _unique(check.name, seen, "check", statement, location)
                checks.append(check)
                for measure in counted.values():
                    if measure.name not in row_counts:  # a rows(...) of an earlier check is that measure
                        _unique(measure.name, seen, "measure", statement, location)
                        row_counts[measure.name] = measure
                        measures.append(measure)
                continue
            if isinstance(statement, PassDecl):
                if policy is not None:
                    raise InvalidInput(
                        "DUPLICATE_PASS",
                        "the suite has two pass policies",
                        location=location,
                        text=statement.text,
                        hint="keep one 'pass when ...'",
                    )
                policy = _policy(statement.policy, location)
                continue
            if isinstance(statement, StreamDecl):
                if stream_every_ms is not None or statement.interval_ms <= 0:
                    raise InvalidInput(
                        "BAD_STREAM",
                        "the suite's trigger is given twice" if stream_every_ms is not None else "a trigger of no time",
                        location=location,
                        text=statement.text,
                        hint="keep one 'stream every 30s'",
                    )
                stream_every_ms = statement.interval_ms
                continue
            if isinstance(statement, SchemaDecl):
                expected = _schema(statement, sources, known_sources)
                _unique(expected.name, seen, "check", statement, location)
                schemas.append(expected)
                continue
            if isinstance(statement, OutputDecl):
                outputs.append(statement)
                continue
            if isinstance(statement, NotifyDecl):
                notify.append(
                    notify_target(
                        statement.url,
                        location,
                        statement.details,
                        statement.tones,
                        statement.checks,
                        statement.segments,
                    )
                )
                continue
            rule: RuleSpec
            if isinstance(statement, GriffinMeasureDecl):
                rule, view = griffin_measure(statement)
                _unique(rule.name, seen, "rule", statement, location)
                views.extend([view] if view is not None else [])
            elif isinstance(statement, MeasureDecl):
                _unique(statement.name, seen, "measure", statement, location)
                body: RuleBody | None = statement.sql if statement.sql is not None else statement.query
                if statement.native is not None:
                    hidden = _native_source(statement, sources, len(measures) + 1, statement.native)
                    sources[hidden.name] = hidden
                    body = NativeSql(hidden.name, str(hidden.option("query")))
                assert body is not None  # the grammar asks for sql, native or a query
                rule = _measure(statement, body)
            else:
                rule = _rule(statement)
                _unique(rule.name, seen, "rule", statement, location)
            for role in ("source", "target"):
                used = getattr(rule, role)
                if used is not None and used not in sources and used not in known_sources:
                    raise InvalidInput(
                        "UNKNOWN_SOURCE",
                        f"{rule.kind} {rule.name!r} reads unknown source {used!r}",
                        location=_name_location(statement, used, file),
                        text=used,
                        hint=did_you_mean(used, list(sources) + list(known_sources))
                        or 'declare it first: source NAME = csv("path")',
                    )
            if rule.target is not None and spec_of(rule.kind).target == "none":
                raise InvalidInput(
                    "TARGET_NOT_ALLOWED",
                    f"{with_article(rule.kind)} rule reads one source, not {rule.target!r}",
                    location=_name_location(statement, rule.target, file),
                    text=rule.target,
                    hint=f"write: {rule.kind} {rule.name} on {rule.source}: ...",
                )
            if isinstance(rule, MeasureSpec):  # added once it is known to read what exists
                measures.append(rule)
            else:
                rules.append(rule)
    suite = Suite(
        name,
        sources,
        rules,
        views,
        file,
        measures=measures,
        checks=checks,
        policy=policy or PassSpec("all"),  # a gate fails on a failing check unless `pass when always` says not to
        stream_every_ms=stream_every_ms,
        schemas=schemas,
        notify=tuple(notify),
    )
    earlier: set[tuple[str, str]] = set()
    for output in outputs:
        with errors.statement():
            before = set(earlier)
            earlier.add((output.source, output.kind))
            suite.outputs[(output.source, output.kind)] = split_output(output, suite, base, known_sources, before)
            table = output_table(output)
            if table is not None:
                suite.output_tables[(output.source, output.kind)] = table
    errors.raise_any(partial=suite)
    return suite


def _schema(statement: SchemaDecl, sources: dict[str, SourceSpec], known_sources: tuple[str, ...]) -> SchemaSpec:
    """A schema statement of a declared source, its types read (a column without one: any type)."""
    if statement.source not in sources and statement.source not in known_sources:
        raise InvalidInput(
            "UNKNOWN_SOURCE",
            f"schema of unknown source {statement.source!r}",
            location=statement.location,
            text=statement.source,
            hint=did_you_mean(statement.source, list(sources) + list(known_sources)),
        )
    columns = []
    for column in statement.columns:
        dtype = None
        if column.type is not None:
            dtype = parse_schema_columns([(column.name, column.type)], column.location).columns[0].dtype
        columns.append((column.name, dtype))
    names = [name for name, _ in columns]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise InvalidInput(
            "BAD_SCHEMA",
            f"schema of {statement.source!r} names column {twice!r} twice",
            location=statement.location,
            text=twice,
        )
    return SchemaSpec(statement.source, statement.mode == "exact", tuple(columns), statement.location, statement.text)


def _unique(name: str, seen: dict[str, set[str]], what: str, statement: Statement, location: Location) -> None:
    """Record ``name`` among the names of its kind; a name used twice is an error."""
    if name in seen[what]:
        raise InvalidInput(
            f"DUPLICATE_{what.upper()}",
            f"two {what}s are named {name!r}",
            location=location,
            text=statement.text[:60],
            hint=f"{what} names must be unique in a suite",
        )
    seen[what].add(name)


def parse_suite_file(path: str | Path, known_sources: tuple[str, ...] = ()) -> Suite:
    path = Path(path)
    return parse_suite(read_utf8(path), str(path), path.parent, known_sources)


def _source(statement: SourceDecl, base: Path) -> SourceSpec:
    """A source statement's spec, its options' names and lists checked (the other families' own
    checks include the names)."""
    source = _declared_source(statement, base)
    if source.kind.family in ("file", "catalog"):
        check_option_names(source)
    check_option_lists(source)
    return source


def _declared_source(statement: SourceDecl, base: Path) -> SourceSpec:
    fmt, paths, options, name = statement.format, statement.paths, statement.options, statement.name
    location, written = statement.location, _written_call(statement)
    declared = dict(options).get("schema")
    schema = parse_schema(str(declared), location) if declared is not None else None
    options = tuple((k, v) for k, v in options if k != "schema")
    family = source_kind(fmt).family
    if family == "database":
        if len(paths) != 1 or schema is not None:
            raise InvalidInput(
                "BAD_SOURCE",
                f"{fmt}(...) takes one URL or file, then table = or query =",
                location=location,
                text=statement.text,
            )
        where = _resolved(paths, base) if source_kind(fmt).paths_are == "files" else paths
        source = SourceSpec(name, fmt, paths=where, options=options, location=location, written=written)
        check_database_source(source)
        return source
    if family == "stream":
        # a Kafka source names brokers, a folder source a folder of this machine (or the cluster's)
        located = _resolved(paths, base) if source_kind(fmt).paths_are == "files" else paths
        source = SourceSpec(
            name, fmt, paths=located, options=options, schema=schema, location=location, written=written
        )
        check_stream_source(source)
        return source
    if family == "lake":
        names = source_kind(fmt).paths_are == "files_or_names"
        if len(paths) != 1 or schema is not None:
            raise InvalidInput(
                "BAD_SOURCE",
                f"{fmt}(...) takes one table (its folder{' or catalog name' if names else ''}), "
                "and reads the schema the table holds",
                location=location,
                text=statement.text,
            )
        source = SourceSpec(name, fmt, paths=paths, options=options, location=location, written=written)
        check_lake_source(source)  # an Iceberg name in a catalog is no path: resolved only when it is one
        if not names or iceberg_is_path(source):
            source = SourceSpec(
                name, fmt, paths=_resolved(paths, base), options=options, location=location, written=written
            )
        return source
    if family == "catalog":
        if len(paths) != 1:
            raise InvalidInput("BAD_SOURCE", "table(...) takes one table name", location=location, text=statement.text)
        return SourceSpec(name, "table", table=paths[0], options=options, location=location, written=written)
    if not paths:
        raise InvalidInput("BAD_SOURCE", f"{fmt}(...) needs a path", location=location, text=statement.text)
    return SourceSpec(
        name, fmt, paths=_resolved(paths, base), options=options, schema=schema, location=location, written=written
    )


def _written_call(statement: SourceDecl) -> str:
    """The declaration's call as written, from its kind on: ``csv("data/x.csv", header = false)``."""
    call = re.search(rf"\b{re.escape(statement.format)}\s*\(", statement.text, re.IGNORECASE)
    return statement.text[call.start() :] if call else statement.text


def _resolved(paths: tuple[str, ...], base: Path) -> tuple[str, ...]:
    """Paths as given when absolute or URLs, else taken from ``base`` (the suite's folder)."""
    return tuple(p if "://" in p or Path(p).is_absolute() else str(base.resolve() / p) for p in paths)


def _name_location(statement: Statement, name: str, file: str | None) -> Location:
    """Where ``name`` stands after ``on`` in a rule statement, else as the rule's name (a freshness
    rule without ``on`` reads the source of its name); names carry no position of their own."""
    start, text = statement.location, statement.text
    match = re.search(r"\bon\s+(?:[^:]*?\b)?(" + re.escape(name) + r")\b", text) or re.match(
        r"\s*\w+\s+(" + re.escape(name) + r")\b", text
    )
    if match is None or start.line is None:
        return start
    before = text[: match.start(1)]
    line = start.line + before.count("\n")
    column = (start.column or 1) + len(before) if "\n" not in before else len(before) - before.rfind("\n")
    return Location(file, line, column)


def _rule(statement: RuleDecl) -> RuleSpec:
    source = statement.source
    if source is None and spec_of(statement.kind).named_source:
        source = statement.name  # `freshness orders: created_ts` reads orders
    return RuleSpec(
        kind=statement.kind,
        name=statement.name,
        source=source,
        target=statement.target,
        body=statement.body,
        details={entry.key: entry.value for entry in statement.details},
        location=statement.location,
        detail_locations={entry.key: (entry.location, entry.value_at) for entry in statement.details},
        segment=statement.segment,
    )


def _native_source(measure: MeasureDecl, sources: dict[str, SourceSpec], number: int, native: NativeText) -> SourceSpec:
    """The hidden source a ``native "..."`` measure reads: its database, its query as written."""
    database = sources.get(measure.source) if measure.source else None
    if database is None or not is_database(database):
        raise InvalidInput(
            "NATIVE_NEEDS_DATABASE",
            f"measure {measure.name!r}: native SQL runs inside a database source",
            location=native.location,
            text=measure.text[:60],
            hint='write: measure "rows" on orders: native "select count(*) from orders", with '
            "orders = postgres(...), mysql(...) or sqlite(...)",
        )
    options = tuple((k, v) for k, v in database.options if k in CONNECTION_OPTIONS)
    if database.kind.networked and database.option("statement_timeout") is None:
        options += (("statement_timeout", NATIVE_STATEMENT_TIMEOUT),)
    return SourceSpec(
        f"{database.name}__native_{number}",
        database.format,
        paths=database.paths,
        options=(("query", native.sql), (NATIVE_MEASURE, measure.name), *options),
        location=native.location,
    )


def _measure(statement: MeasureDecl, body: RuleBody) -> MeasureSpec:
    """A measure: lowered like a profiling rule of its own kind (SQL text for ``sql "..."``)."""
    return MeasureSpec(
        kind=RuleKind.MEASURE.value,
        name=statement.name,
        source=statement.source,
        target=None,
        body=body,
        details={},
        location=statement.location,
        shape=statement.shape,
        segment=statement.segment,
    )


def _policy(node: PassChecks | PassCount | PassAlways, location: Location) -> PassSpec:
    if isinstance(node, PassChecks):
        return PassSpec("checks", node.names, location=location)
    if isinstance(node, PassCount):
        count = number_from_text(node.count)
        if math.isinf(count):
            raise InvalidInput(
                "BAD_NUMBER", f"the number of checks {node.count[:20]}... is too large", location=location
            )
        return PassSpec("passed", op=node.op, count=int(count), location=location)
    return PassSpec(node.kind, location=location)
