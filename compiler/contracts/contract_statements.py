"""An ODCS contract as the statements of a native suite, each kept with the contract path it states.

Every check is named by its contract path (``schema[0].properties[2].quality[0]``), so a failing
rule reads as the contract writes it in every output. Docs: docs/contracts.md ("Mapping").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import with_article
from ..language.ruletree.fast_expressions import KEYWORDS
from ..plan.data_types import parse_type_name
from ..spark_dialect.spark_names import quoted
from ..suites.suite import RowClause
from .contract_servers import source_statement
from .physical_types import UnknownType, physical_type
from .quality_rules import (
    NON_BLOCKING,
    ContractProblem,
    Unsupported,
    comparison,
    duplicate_keys,
    duplicates_measure,
    library_condition,
    on_exclusive_bound,
    percent_of,
    rows_where,
)
from .relationships import relationships
from .type_options import option_condition
from .yaml_document import Path, YamlMap, show_path

# logicalType -> the type a schema statement names (compared by logical type: bigint ~ int)
# (number: integers and decimals alike, so only the column is required)
_TYPES = {"string": "string", "integer": "bigint", "boolean": "boolean",
          "date": "date", "timestamp": "timestamp"}  # fmt: skip
_DURATIONS = {"d": "d", "day": "d", "days": "d", "h": "h", "hr": "h", "hour": "h", "hours": "h",
              "m": "m", "min": "m", "minute": "m", "minutes": "m", "s": "s", "sec": "s", "second": "s",
              "seconds": "s"}  # fmt: skip
# a retention's units, in days as datacontract-cli counts them (a year 365 days, a month 30);
# `m` is left out: minutes for a latency, months for datacontract-cli's retention
_RETENTION_DAYS = {"y": 365, "yr": 365, "year": 365, "years": 365, "mo": 30, "month": 30, "months": 30,
                   "d": 1, "day": 1, "days": 1}  # fmt: skip


# (logicalType, physicalType's kind) that agree although they differ: ODCS v3.0's `date` is any
# date or time (v3.1 adds `timestamp`), so a timestamp column may be a v3.0 date; ODCS has no
# binary type, so a bytes column is a `string` in it
_NARROWED = frozenset({("date", "timestamp"), ("string", "binary")})

# the name's tail of the warning that a mustBeBetween rule's value is on a bound
BOUND_WARNING = "(on a bound, which mustBeBetween excludes)"


Named = tuple[str, Path]  # a property's column and where the property names it


@dataclass(frozen=True)
class Statement:
    """One line of the native suite and the contract path it comes from, with the clause whose
    failing rows a quarantine takes, if it states one; or, with no text, a ``warning`` about the
    element at its path that the contract runs without."""

    text: str
    path: Path
    clause: RowClause | None = None
    warning: str = ""
    uncompared: tuple[str, str, str] | None = None  # with a warning: (table, column, physicalType) not compared
    stated: tuple[Named, ...] = ()  # with a clause the contract derives from properties: their columns


def source_name(obj: YamlMap) -> str:
    """The name a schema object's source has in the suite: its ``name``, made a plain identifier."""
    return plain_name(str(obj.get("name") or "object"))


def plain_name(text: str, prefix: str = "_") -> str:
    """``text`` as a suite's identifier: other characters as ``_``, ``prefix`` before a leading
    digit, and ``_`` after a word the language keeps (an object named ``order`` is ``order_``)."""
    name = re.sub(r"\W", "_", text) or "_"
    name = name if not name[0].isdigit() else f"{prefix}{name}"
    return f"{name}_" if name.lower() in KEYWORDS else name


def contract_statements(contract: YamlMap, server: YamlMap | None) -> list[Statement]:
    """The native statements of ``contract`` read from ``server`` (None: `validate` without data)."""
    out: list[Statement] = []
    for index, obj in enumerate(contract.get("schema") or []):
        path: Path = ("schema", index)
        table = source_name(obj)
        if server is not None:
            out.append(Statement(source_statement(server, obj, table), path))
        out.extend(_object_statements(obj, table, path, server.get("type") if server else None))
    objects = contract.get("schema") or []
    named = {str(o.get(key)): o for o in objects for key in ("physicalName", "name") if o.get(key)}
    out.extend(_sla_statements(contract, named))
    found = relationships(objects, [source_name(obj) for obj in objects])
    for relation in found:
        accuracy, check = relation.statements()
        out += [Statement(accuracy, relation.path, relation.clause()), Statement(check, relation.path)]
    return out


def _object_statements(obj: YamlMap, table: str, path: Path, server_type: object) -> list[Statement]:
    out: list[Statement] = []
    properties = obj.get("properties") or []
    typed = []
    keys: list[tuple[int, Named]] = []  # position, property
    for index, prop in enumerate(properties):
        where: Path = (*path, "properties", index)
        column = str(prop.get("physicalName") or prop["name"])
        named = (column, (*where, "physicalName" if prop.get("physicalName") else "name"))
        try:
            kind = _column_type(prop, where, server_type)
        except UnknownType as unknown:
            stated = (table, column, str(prop["physicalType"]))
            out.append(Statement("", (*where, "physicalType"), warning=str(unknown), uncompared=stated))
            kind = _TYPES.get(str(prop.get("logicalType")))
        typed.append(f"{quoted(column)} {kind}" if kind else quoted(column))
        out.extend(_property_statements(prop, table, named, where))
        if prop.get("primaryKey"):
            keys.append((int(prop.get("primaryKeyPosition") or 0), named))
    if typed:
        out.insert(0, Statement(f"schema {table}: required({', '.join(typed)})", path))
    integers = frozenset(
        str(p.get("physicalName") or p["name"]) for p in properties if p.get("logicalType") == "integer"
    )
    if keys:
        ordered = tuple(named for _, named in sorted(keys, key=lambda key: (key[0], key[1][0])))
        out.extend(_key_statements(table, ordered, (*path, "primaryKey"), integers))
    for index, rule in enumerate(obj.get("quality") or []):
        out.extend(_quality(rule, table, None, (*path, "quality", index), integers))
    return out


def _column_type(prop: YamlMap, path: Path, server_type: object) -> str | None:
    """The type the schema check compares: the physicalType's on the server when it names one (the
    more precise), else the logicalType's; a physicalType of another kind than its logicalType is
    refused; one naming no type of the server's raises UnknownType."""
    logical = _TYPES.get(str(prop.get("logicalType")))
    if "physicalType" not in prop:
        return logical
    where = (*path, "physicalType")
    try:
        physical = physical_type(prop["physicalType"], str(server_type) if server_type else None)
    except UnknownType:
        raise
    except Unsupported as exc:
        raise ContractProblem(where, str(exc)) from None
    if logical and physical and _kind(logical) != _kind(physical) and (logical, _kind(physical)) not in _NARROWED:
        raise ContractProblem(
            where,
            f"physicalType {prop['physicalType']!r} is of type {_kind(physical)}, logicalType "
            f"{prop['logicalType']!r} of type {_kind(logical)}: no column is both",
        )
    return physical or logical


def _kind(type_name: str) -> str:
    """The logical type a schema statement's type name is compared as (bigint: integer)."""
    dtype = parse_type_name(type_name)
    return dtype.kind.value if dtype else type_name


def _property_statements(prop: YamlMap, table: str, named: Named, path: Path) -> list[Statement]:
    out: list[Statement] = []
    column = named[0]
    col = quoted(column)
    if prop.get("required"):
        out.append(_none_where(show_path((*path, "required")), table, f"{col} is null", path, stated=(named,)))
    if prop.get("unique"):
        out.extend(_no_duplicates(show_path((*path, "unique")), table, [column], path, stated=(named,)))
    options = prop.get("logicalTypeOptions") or {}
    for key, value in options.items():
        where = (*path, "logicalTypeOptions", key)
        try:
            condition = option_condition(key, value, col, prop.get("logicalType"))
        except Unsupported as exc:
            raise ContractProblem(where, str(exc)) from None
        if condition is not None:
            out.append(_none_where(show_path(where), table, condition, where, stated=(named,)))
    for index, rule in enumerate(prop.get("quality") or []):
        out.extend(_quality(rule, table, column, (*path, "quality", index)))
    return out


def _key_statements(table: str, stated: tuple[Named, ...], path: Path, integers: frozenset[str]) -> list[Statement]:
    name = show_path(path)
    names = [column for column, _ in stated]
    nulls = " or ".join(f"{quoted(column)} is null" for column in names)
    return [
        _none_where(f"{name} (required)", table, nulls, path, clause=name, stated=stated),
        *_no_duplicates(name, table, names, path, integers, stated),
    ]


def _none_where(
    name: str, table: str, condition: str, path: Path, clause: str | None = None, stated: tuple[Named, ...] = ()
) -> Statement:
    """The check that no row of ``table`` is under ``condition``: those rows fail the clause at
    ``path`` (named ``clause``, by default as the check), derived from the properties ``stated``."""
    count = rows_where(table, condition)
    row_clause = RowClause(clause or name, table, condition, count)
    return Statement(f'check "{name}": {count} == 0', path, row_clause, stated=stated)


def _no_duplicates(
    name: str,
    table: str,
    keys: list[str],
    path: Path,
    integers: frozenset[str] = frozenset(),
    stated: tuple[Named, ...] = (),
) -> list[Statement]:
    """The measure of ``keys``' duplicates (``duplicates_measure``) and the check that there are none."""
    return [
        _duplicates(name, table, keys, path, integers, stated),
        Statement(f'check "{name}": measures["{name}"] == 0', path),
    ]


def _duplicates(
    name: str, table: str, keys: list[str], path: Path, integers: frozenset[str], stated: tuple[Named, ...] = ()
) -> Statement:
    """The measure ``name`` counting ``keys``' duplicates: every row holding a duplicated key fails its clause."""
    clause = RowClause(name, table, f"unique({', '.join(quoted(key) for key in keys)})", keys=tuple(keys))
    text = f'measure "{name}": sql {_sql_text(duplicates_measure(table, keys, integers))}'
    return Statement(text, path, clause, stated=stated)


def _quality(
    rule: YamlMap, table: str, column: str | None, path: Path, integers: frozenset[str] = frozenset()
) -> list[Statement]:
    name = show_path(path)
    check = "warn check" if str(rule.get("severity", "")).lower() in NON_BLOCKING else "check"
    rule_type = rule.get("type", "library")
    try:
        if rule_type == "text":
            return []  # prose: listed by `gryph explain`, never run
        if rule_type == "custom":
            return _custom(rule, path)
        if rule_type == "sql":
            query = _placeholders(str(rule.get("query", "")), table, column)
            measure = Statement(f'measure "{name}": sql {_sql_text(query)}', path)
            value = f'measures["{name}"]'
            return [
                measure,
                Statement(f'{check} "{name}": {comparison(rule, value)}', path),
                *_bound_warning(rule, name, value, path),
            ]
        metric = rule.get("metric") or rule.get("rule")
        arguments = rule.get("arguments") or {}
        statements = []
        clause = None
        if metric == "duplicateValues":
            statements.append(_duplicates(name, table, duplicate_keys(column, arguments), path, integers))
            count = f'measures["{name}"]'
        else:
            condition = library_condition(str(metric), quoted(column) if column else None, arguments)
            count = rows_where(table, condition)
            clause = RowClause(name, table, condition, count) if condition is not None else None
        if rule.get("unit") == "percent":
            count = percent_of(count, table)
        statements.append(Statement(f'{check} "{name}": {comparison(rule, count)}', path, clause))
        return statements + _bound_warning(rule, name, count, path)
    except Unsupported as exc:
        raise ContractProblem(path, str(exc)) from None


def _bound_warning(rule: YamlMap, name: str, value: str, path: Path) -> list[Statement]:
    """A warning beside a ``mustBeBetween`` rule, failing when the value is on a bound: the rule
    then failed only because ODCS's bounds are exclusive."""
    condition = on_exclusive_bound(rule, value)
    if condition is None:
        return []
    return [Statement(f'warn check "{name} {BOUND_WARNING}": {condition}', path)]


def _custom(rule: YamlMap, path: Path) -> list[Statement]:
    if str(rule.get("engine", "")).lower() != "gryph":
        return []  # another tool's rule: listed by `gryph explain`, never run
    text = str(rule.get("implementation", ""))
    return [Statement(line, (*path, "implementation")) for line in text.splitlines() if line.strip()]


def _placeholders(query: str, table: str, column: str | None) -> str:
    """ODCS's ``{object}``/``{property}`` (and ``${table}``/``${column}``) as the quoted names they stand for."""
    names = {"object": quoted(table), "table": quoted(table)}
    if column is not None:
        names |= {"property": quoted(column), "column": quoted(column)}
    return re.sub(
        r"\$?\{(object|property|table|column)\}",
        lambda m: names.get(m.group(1), m.group(0)),
        query,
    )


def _sql_text(query: str) -> str:
    """A query as the DSL's double-quoted string on one line."""
    one_line = " ".join(query.split())
    return '"' + one_line.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _sla_statements(contract: YamlMap, objects: dict[str, YamlMap]) -> list[Statement]:
    out = []
    for index, sla in enumerate(contract.get("slaProperties") or []):
        path: Path = ("slaProperties", index)
        kind = sla.get("property")
        if kind not in ("latency", "freshness", "retention"):
            continue  # availability, endOfLife...: promises about the service, not rows
        element = str(sla.get("element") or "")
        table, _, column = element.rpartition(".")
        value, unit = sla.get("value"), str(sla.get("unit", "d")).lower()
        if kind == "retention":  # the oldest row no older than the period
            days = _RETENTION_DAYS.get(unit)
            limit, of = (f"{value * days}d" if days and isinstance(value, int) else None), "of = oldest, "
            wanted = "a whole number value and a unit of y, mo or d (a year of 365 days, a month of 30)"
        else:
            limit = f"{value}{_DURATIONS[unit]}" if unit in _DURATIONS and isinstance(value, (int, float)) else None
            of, wanted = "", "a number value and a unit of d, h, m or s"
        if table not in objects or not column or limit is None or isinstance(value, bool):
            raise ContractProblem(path, f"{with_article(kind)} SLA needs element 'object.property', {wanted}")
        source = source_name(objects[table])
        out.append(Statement(f"freshness sla_{index} on {source}: {quoted(column)} with {of}error = {limit}", path))
    return out
