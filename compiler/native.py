"""Native suites (``.dq`` files): parse the text and build the compiler's ``Suite``."""

from __future__ import annotations

import math
import re
from pathlib import Path

from .errors import InvalidInput, Location, did_you_mean
from .gcpause import without_cyclic_gc
from .numbers import number_from_text
from .parser import location_of, parse, source_text, unquote_label, unquote_name, unquote_string
from .resolve import TIME_UNITS_MS
from .databases import check_database_source, is_database
from .sources import DATABASE_FORMATS, SourceSpec
from .suite import TWO_SOURCE_KINDS, CheckSpec, MeasureSpec, NativeSql, Origin, PassSpec, RuleSpec, Suite
from .text_files import read_utf8
from .types import TYPE_NAMES, Column, Schema, parse_type_name


def literal_value(node) -> object:
    """The Python value of a literal, tuple or bare name in a source option or rule detail."""
    kind = type(node).__name__
    if kind == "TupleValue":
        return tuple(literal_value(item) for item in node.items)
    if kind == "Identifier":
        return unquote_name(node.name)
    if kind == "StringLiteral":
        return unquote_string(node.value)
    if kind == "TimeLiteral":
        text = node.value.lower()
        unit = "ms" if text.endswith("ms") else text[-1]
        return number_from_text(text[: -len(unit)]) * TIME_UNITS_MS[unit]
    if kind == "NumberLiteral":
        return number_from_text(node.value)
    if kind == "BooleanLiteral":
        return node.value.lower() == "true"
    if kind == "NanLiteral":
        return math.nan
    return None  # NullLiteral


@without_cyclic_gc
def parse_suite(
    text: str, file: str | None = None, base_dir: str | Path | None = None, known_sources: tuple[str, ...] = ()
) -> Suite:
    """Parse a native suite; relative paths are taken from ``base_dir`` (the file's folder).

    ``known_sources`` are sources the caller provides (in-memory frames), so rules may read
    them without a ``source`` statement.
    """
    model = parse("suite", text, file)
    if isinstance(model, str):  # textX gives back the text itself when nothing was declared
        raise InvalidInput(
            "EMPTY_SUITE",
            "the suite declares no sources and no rules",
            location=Location(file, 1, 1),
            text=None,
            hint="add a rule, e.g. completeness contact on users: email",
        )
    base = Path(base_dir) if base_dir is not None else (Path(file).parent if file else Path("."))
    name = unquote_name(model.name) if model.name else (Path(file).stem if file else "suite")
    sources: dict[str, SourceSpec] = {}
    rules: list[RuleSpec] = []
    measures: list[MeasureSpec] = []
    checks: list[CheckSpec] = []
    policy: PassSpec | None = None
    seen: dict[str, set[str]] = {"check": set(), "measure": set(), "rule": set()}
    for statement in model.statements:
        location = location_of(statement, file)
        kind = type(statement).__name__
        if kind == "SourceDecl":
            source = _source(statement, base, location, file)
            if source.name in sources:
                raise InvalidInput(
                    "DUPLICATE_SOURCE",
                    f"source {source.name!r} is declared twice",
                    location=location,
                    text=source_text(statement),
                )
            sources[source.name] = source
            continue
        if kind == "CheckDecl":
            check = CheckSpec(unquote_label(statement.name), statement.expr, location, statement.warn)
            _unique(check.name, seen, "check", statement, location)
            checks.append(check)
            continue
        if kind == "PassDecl":
            if policy is not None:
                raise InvalidInput(
                    "DUPLICATE_PASS",
                    "the suite has two pass policies",
                    location=location,
                    text=source_text(statement),
                    hint="keep one 'pass when ...'",
                )
            policy = _policy(statement.policy, location)
            continue
        if kind == "MeasureDecl":
            rule = _measure(statement, location, file)
            _unique(rule.name, seen, "measure", statement, location)
            measures.append(rule)
            if statement.native is not None:
                hidden = _native_source(rule, sources, len(measures), statement, file)
                sources[hidden.name] = hidden
                rule.body = NativeSql(hidden.name, str(hidden.option("query")))
        else:
            rule = _rule(statement, location, file)
            _unique(rule.name, seen, "rule", statement, location)
            rules.append(rule)
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
        if rule.target is not None and rule.kind not in TWO_SOURCE_KINDS:
            raise InvalidInput(
                "TARGET_NOT_ALLOWED",
                f"a {rule.kind} rule reads one source, not {rule.target!r}",
                location=_name_location(statement, rule.target, file),
                text=rule.target,
                hint=f"write: {rule.kind} {rule.name} on {rule.source}: ...",
            )
    return Suite(name, sources, rules, [], file, measures=measures, checks=checks, policy=policy or PassSpec())


def _unique(name: str, seen: dict[str, set[str]], what: str, statement, location: Location) -> None:
    """Record ``name`` among the names of its kind; a name used twice is an error."""
    if name in seen[what]:
        raise InvalidInput(
            f"DUPLICATE_{what.upper()}",
            f"two {what}s are named {name!r}",
            location=location,
            text=source_text(statement)[:60],
            hint=f"{what} names must be unique in a suite",
        )
    seen[what].add(name)


def parse_suite_file(path: str | Path, known_sources: tuple[str, ...] = ()) -> Suite:
    path = Path(path)
    return parse_suite(read_utf8(path), str(path), path.parent, known_sources)


def _source(statement, base: Path, location, file) -> SourceSpec:
    fmt = statement.format.lower()
    paths = [unquote_string(arg.path.value) for arg in statement.args if getattr(arg, "path", None)]
    options = tuple((arg.key, literal_value(arg.value)) for arg in statement.args if getattr(arg, "key", None))
    name = unquote_name(statement.name)
    declared = dict(options).get("schema")
    schema = parse_schema(str(declared), location) if declared is not None else None
    options = tuple((k, v) for k, v in options if k != "schema")
    if fmt in DATABASE_FORMATS:
        if len(paths) != 1 or schema is not None:
            raise InvalidInput(
                "BAD_SOURCE",
                f"{fmt}(...) takes one URL or file, then table = or query =",
                location=location,
                text=source_text(statement),
            )
        where = paths[0] if fmt == "postgres" or Path(paths[0]).is_absolute() else str(base.resolve() / paths[0])
        source = SourceSpec(name, fmt, paths=(where,), options=options, location=location)
        check_database_source(source)
        return source
    if fmt == "table":
        if len(paths) != 1:
            raise InvalidInput(
                "BAD_SOURCE", "table(...) takes one table name", location=location, text=source_text(statement)
            )
        return SourceSpec(name, "table", table=paths[0], options=options, location=location)
    if not paths:
        raise InvalidInput("BAD_SOURCE", f"{fmt}(...) needs a path", location=location, text=source_text(statement))
    resolved = tuple(p if "://" in p or Path(p).is_absolute() else str(base.resolve() / p) for p in paths)
    return SourceSpec(name, fmt, paths=resolved, options=options, schema=schema, location=location)


def parse_schema(text: str, location=None) -> Schema:
    """A declared schema, ``"id bigint, name string, amount decimal(10,2)"``."""
    pairs = []
    for part in re.split(r",(?![^(]*\))", text):
        pieces = part.strip().split(None, 1)
        if len(pieces) != 2:
            raise InvalidInput(
                "BAD_SCHEMA",
                f"a schema column needs a name and a type: {part.strip()!r}",
                location=location,
                text=text,
                hint='write schema = "id bigint, name string"',
            )
        pairs.append((unquote_name(pieces[0]), pieces[1]))
    return parse_schema_columns(pairs, location)


def parse_schema_columns(pairs, location=None) -> Schema:
    """A schema from ``(name, type name)`` pairs (native declarations, Griffin's ``schema``)."""
    columns = []
    for name, type_name in pairs:
        dtype = parse_type_name(str(type_name or ""))
        if not name or dtype is None:
            raise InvalidInput(
                "UNKNOWN_TYPE",
                f"unknown type {type_name!r} for column {name!r}",
                location=location,
                text=str(type_name),
                hint=did_you_mean(str(type_name), TYPE_NAMES),
            )
        columns.append(Column(str(name), dtype))
    try:
        return Schema(tuple(columns))
    except ValueError as error:
        raise InvalidInput("BAD_SCHEMA", str(error), location=location) from None


def _name_location(statement, name: str, file) -> Location:
    """Where ``name`` stands after ``on`` in a rule statement (names carry no position of their own)."""
    start = location_of(statement, file)
    text = source_text(statement)
    match = re.search(r"\bon\s+(?:[^:]*?\b)?(" + re.escape(name) + r")\b", text)
    if match is None or start.line is None:
        return start
    before = text[: match.start(1)]
    line = start.line + before.count("\n")
    column = (start.column or 1) + len(before) if "\n" not in before else len(before) - before.rfind("\n")
    return Location(file, line, column)


def _rule(statement, location, file) -> RuleSpec:
    kind = statement.kind.lower()
    details = {}
    detail_locations = {}
    if statement.details is not None:
        for entry in statement.details.entries:
            details[entry.key] = literal_value(entry.value)
            detail_locations[entry.key] = (location_of(entry, file), location_of(entry.value, file))
    if kind == "accuracy":
        body = statement.rule
    elif kind == "profiling":
        body = statement.query
    else:
        body = statement
    target = getattr(statement, "target", None)
    return RuleSpec(
        kind=kind,
        name=unquote_name(statement.name),
        source=unquote_name(statement.source) if statement.source else None,
        target=unquote_name(target) if target else None,
        body=body,
        details=details,
        location=location,
        origin=Origin(file),
        detail_locations=detail_locations,
    )


def _native_source(measure: MeasureSpec, sources: dict[str, SourceSpec], number: int, statement, file) -> SourceSpec:
    """The hidden source a ``native "..."`` measure reads: its database, its query as written."""
    database = sources.get(measure.source) if measure.source else None
    if database is None or not is_database(database):
        raise InvalidInput(
            "NATIVE_NEEDS_DATABASE",
            f"measure {measure.name!r}: native SQL runs inside a database source",
            location=location_of(statement.native, file),
            text=source_text(statement)[:60],
            hint='write: measure "rows" on orders: native "select count(*) from orders", with '
            "orders = postgres(...) or sqlite(...)",
        )
    options = tuple((k, v) for k, v in database.options if k in ("user_env", "password_env"))
    text = unquote_string(statement.native.text.value)
    return SourceSpec(
        f"{database.name}__native_{number}",
        database.format,
        paths=database.paths,
        options=(("query", text), *options),
        location=location_of(statement.native, file),
    )


def _measure(statement, location, file) -> MeasureSpec:
    """A measure: lowered like a profiling rule of its own kind (SQL text for ``sql "..."``)."""
    body = unquote_string(statement.sql.text.value) if statement.sql is not None else statement.query
    return MeasureSpec(
        kind="measure",
        name=unquote_label(statement.name),
        source=unquote_name(statement.source) if statement.source else None,
        target=None,
        body=body,
        details={},
        location=location,
        origin=Origin(file),
        shape=statement.shape.lower() if statement.shape else None,
    )


def _policy(node, location) -> PassSpec:
    kind = type(node).__name__
    if kind == "PassChecks":
        return PassSpec("checks", tuple(unquote_label(n) for n in node.names), location=location)
    if kind == "PassCount":
        count = number_from_text(node.count)
        if math.isinf(count):
            raise InvalidInput(
                "BAD_NUMBER", f"the number of checks {node.count[:20]}... is too large", location=location
            )
        return PassSpec("passed", op=node.op, count=count, location=location)
    return PassSpec(node.kind.lower(), location=location)
