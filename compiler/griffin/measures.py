"""Generation B: Griffin master's ``measures``, each read into a ``RuleSpec`` of its own kind.

Griffin writes a measure's metric only when its ``out`` has a metric entry and its records only
when it has a record entry, both under the measure's name (it ignores the entry's ``name`` and
``flatten``): so does gryph.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import Location, did_you_mean
from ..language.ruletree.convert import parse_rule_text
from ..language.ruletree.nodes import Expr, SelectList
from ..plan.data_types import TYPE_NAMES, Kind, parse_type_name
from ..rule_kinds import RuleKind
from ..spark_dialect.spark_names import with_frames
from ..suites.griffin_measure_specs import (
    BAD_FLAGS,
    MEASURE_KINDS,
    TYPE_SPELLINGS,
    AccuracyConfig,
    ColumnRef,
    CompletenessConfig,
    DuplicationConfig,
    ProfilingConfig,
    SchemaConformanceConfig,
    SparkSqlConfig,
    TypeCheck,
    integer_range,
)
from ..suites.suite import MetricOutput, RuleBody, RuleSpec, ViewSpec
from .connectors import DataSources
from .document import Node
from .known_keys import check_keys
from .outputs import read_outputs


def read_measures(measures: list[Node], data: DataSources) -> list[RuleSpec]:
    """One rule per measure; a sparkSQL measure's query joins ``data.views``."""
    rules: list[RuleSpec] = []
    names: set[str] = set()
    for entry in measures:
        if not isinstance(entry.value, dict):
            raise entry.error("BAD_CONFIG", f"{entry.where} must be a measure object with a name and a type")
        check_keys(entry, "measure")
        name = entry.text("name", required=True) or ""
        if not name.strip():
            raise entry.child("name").error("BAD_CONFIG", "a measure needs a non-empty name")
        if name in names:
            raise entry.child("name").error(
                "DUPLICATE_MEASURE", f"two measures are named {name!r}", "give each measure a name of its own"
            )
        names.add(name)
        rules.append(_measure(entry, name, data))
    return rules


def _measure(entry: Node, name: str, data: DataSources) -> RuleSpec:
    type_node = entry.child("type")
    kind = MEASURE_KINDS.get((entry.text("type", required=True) or "").lower())
    if kind is None:
        raise type_node.error(
            "UNKNOWN_MEASURE_TYPE",
            f"unknown measure type {type_node.value!r}",
            did_you_mean(str(type_node.value), TYPE_SPELLINGS),
        )
    source = _source(entry, "data.source", data)
    config = entry.obj("config")
    metric, _ = read_outputs(entry)  # validates every entry; Griffin names the outputs after the measure
    record = any((out.text("type") or "").lower() in ("record", "records") for out in entry.items("out"))
    target = None
    if kind is RuleKind.GRIFFIN_COMPLETENESS:
        body: RuleBody = CompletenessConfig(_condition(config, "expr"))
    elif kind is RuleKind.GRIFFIN_DUPLICATION:
        body = DuplicationConfig(_columns(config), _bad_flag(config))
    elif kind is RuleKind.GRIFFIN_PROFILING:
        body = _profiling(config)
    elif kind is RuleKind.GRIFFIN_ACCURACY:
        if config.child("ref.source").value is None:
            raise config.error(
                "MISSING_REF_SOURCE",
                f"accuracy measure {name!r} needs config.ref.source",
                '"ref.source": "<the data source to compare with>"',
            )
        target = _source(config, "ref.source", data)
        body = AccuracyConfig(tuple(_pair(item) for item in _objects(config, "expr")))
    elif kind is RuleKind.GRIFFIN_SPARK_SQL:
        body = _spark_sql(config, name, data)
    else:
        body = SchemaConformanceConfig(tuple(_type_check(item) for item in _objects(config, "expr")))
    return RuleSpec(
        kind.value,
        name,
        source,
        target,
        body,
        {},
        entry.location,
        MetricOutput(name, "map") if metric else None,
        name if record and kind is not RuleKind.GRIFFIN_PROFILING else None,
    )  # profiling has no records


def _source(node: Node, key: str, data: DataSources) -> str:
    value = node.text(key, required=True) or ""
    if value not in data.names:
        raise node.child(key).error(
            "UNKNOWN_SOURCE",
            f"{node.child(key).where} names no data source: {value!r}",
            did_you_mean(value, data.names),
        )
    return value


def _nonempty_text(config: Node, key: str) -> str:
    text = config.text(key, required=True) or ""
    if not text.strip():
        raise config.child(key).error("BAD_CONFIG", f"{config.child(key).where} must not be empty")
    return text


def _condition(config: Node, key: str) -> Expr:
    """A Spark SQL boolean expression, parsed with the DSL's expression grammar."""
    node = config.child(key)
    text = _nonempty_text(config, key)
    location = node.location
    body = parse_rule_text("selections", text, location.file, (location.line or 1) - 1, location.column or 0)
    assert isinstance(body, SelectList)
    items = body.items
    if len(items) != 1 or items[0].alias:
        raise node.error(
            "BAD_CONFIG",
            f"{node.where} must be one condition, not a list or an alias",
            "combine conditions with AND / OR",
        )
    return items[0].expr


def _columns(config: Node) -> tuple[ColumnRef, ...]:
    """``expr`` as Griffin reads it for duplication and profiling: comma-separated column names."""
    node = config.child("expr")
    text = config.text("expr", "") or ""
    if not text.strip():
        return ()
    refs, start = [], 0
    for part in text.split(","):
        name = part.strip()
        if not name:
            raise node.error("BAD_CONFIG", f"{node.where} lists an empty column name", "write: col1, col2")
        refs.append(ColumnRef(name, _inside(node, start + part.index(name))))
        start += len(part) + 1
    return tuple(dict.fromkeys(refs))  # Griffin drops repeated names


def _inside(node: Node, index: int) -> Location:
    """Where character ``index`` of a JSON string stands (the string's start if the JSON escapes any)."""
    location = node.location
    if location.column is None or json.dumps(node.value, ensure_ascii=False)[1:-1] != node.value:
        return location
    return Location(location.file, location.line, location.column + 1 + index)


def _bad_flag(config: Node) -> str:
    node = config.child("bad.record.definition")
    flag = config.text("bad.record.definition", required=True)
    if flag not in BAD_FLAGS:
        raise node.error(
            "BAD_RECORD_DEFINITION",
            f"{node.where} must be one of {', '.join(BAD_FLAGS)}",
            did_you_mean(str(flag), BAD_FLAGS),
        )
    return flag


def _profiling(config: Node) -> ProfilingConfig:
    approximate = _typed(config, "approx.distinct.count", bool, True, "true or false")
    scale = _typed(config, "round.scale", int, 3, "an integer")
    sample = _typed(config, "dataset.sample", (int, float), 1.0, "a number")
    if sample != 1:
        # Griffin samples at random; a random sample cannot give the same numbers on two engines
        raise config.child("dataset.sample").error(
            "UNSUPPORTED",
            "dataset.sample below 1.0 profiles a random sample in Griffin; gryph profiles "
            "every row so that both engines give the same numbers",
            "remove dataset.sample or set it to 1.0",
        )
    return ProfilingConfig(_columns(config), approximate, scale)


def _typed(config: Node, key: str, kinds: type | tuple[type, ...], default: Any, what: str) -> Any:
    """A config value of one JSON type (Griffin silently uses the default for any other)."""
    node = config.child(key)
    if node.value is None:
        return default
    if not isinstance(node.value, kinds) or (
        bool not in (kinds if isinstance(kinds, tuple) else (kinds,)) and isinstance(node.value, bool)
    ):
        raise node.error(
            "BAD_CONFIG",
            f"{node.where} must be {what}",
            "Griffin would ignore this value and use its default; write it as a JSON value",
        )
    return node.value


def _objects(config: Node, key: str) -> list[Node]:
    items = config.items(key, required=True)
    if not items:
        raise config.child(key).error("BAD_CONFIG", f"{config.child(key).where} must list at least one entry")
    for item in items:
        if not isinstance(item.value, dict):
            raise item.error("BAD_CONFIG", f"{item.where} must be an object")
    return items


def _column(item: Node, key: str) -> ColumnRef:
    return ColumnRef(_nonempty_text(item, key), item.child(key).location)


def _pair(item: Node) -> tuple[ColumnRef, ColumnRef]:
    return _column(item, "source.col"), _column(item, "ref.col")


def _type_check(item: Node) -> TypeCheck:
    node = item.child("type")
    name = _nonempty_text(item, "type")
    dtype = parse_type_name(name)
    if dtype is None or dtype.kind in (Kind.BINARY,):
        raise node.error(
            "UNKNOWN_TYPE",
            f"{node.where}: {name!r} is not a type gryph can check",
            did_you_mean(name, [n for n in TYPE_NAMES if n != "binary"]),
        )
    return TypeCheck(_column(item, "source.col"), dtype, integer_range(name))


def _spark_sql(config: Node, name: str, data: DataSources) -> SparkSqlConfig:
    query_node = config.child("expr")
    query = _nonempty_text(config, "expr")
    view = f"{name}__query"
    data.views.append(ViewSpec(view, with_frames(query, {}), query_node.location))
    return SparkSqlConfig(view, _condition(config, "bad.record.definition"))
