"""Helpers of the conformance suite: typed tables from case data, and the engines that run them.

Case tables are held as data: ``{"columns": [[name, type], ...], "rows": [[...], ...]}``.
Values are JSON values read through their column's type: in a ``float64`` column the strings
``"NaN"``, ``"inf"`` and ``"-inf"`` are those floats; ``timestamp``, ``timestamptz`` and ``date`` columns
hold ISO text, ``decimal(p, s)`` columns decimal text (``"1.50"``). Everything else is taken as written (``null`` is NULL).
"""

from __future__ import annotations

import copy
import datetime as dt
import decimal
import json
import math
import re
from pathlib import Path

import pyarrow as pa

CASES_DIR = Path(__file__).parent / "cases"

ARROW_TYPES: dict[str, pa.DataType] = {
    "int64": pa.int64(),
    "int32": pa.int32(),
    "float64": pa.float64(),
    "string": pa.string(),
    "bool": pa.bool_(),
    "timestamp": pa.timestamp("us"),
    "timestamptz": pa.timestamp("us", tz="UTC"),  # ISO text with an offset: the instant it names
    "date": pa.date32(),
}

_FLOATS = {"NaN": math.nan, "inf": math.inf, "-inf": -math.inf}


def arrow_type(name: str) -> pa.DataType:
    """A column type: a name of ``ARROW_TYPES`` or ``list<T>``, ``map<K, V>``, ``struct<a: T, ...>``."""
    name = name.strip()
    if name in ARROW_TYPES:
        return ARROW_TYPES[name]
    digits = re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", name)
    if digits:
        return pa.decimal128(int(digits.group(1)), int(digits.group(2)))
    outer, _, inner = name.partition("<")
    parts = _split(inner[:-1])
    if outer == "list":
        return pa.list_(arrow_type(parts[0]))
    if outer == "map":
        return pa.map_(arrow_type(parts[0]), arrow_type(parts[1]))
    if outer == "struct":
        return pa.struct([(p.split(":", 1)[0].strip(), arrow_type(p.split(":", 1)[1])) for p in parts])
    raise KeyError(name)


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts of a type's parameters."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _nested(value, dtype: pa.DataType):
    """Case data for nested columns: maps are written as JSON objects."""
    if value is None:
        return None
    if pa.types.is_map(dtype):
        return [(k, _nested(v, dtype.item_type)) for k, v in value.items()]
    if pa.types.is_list(dtype):
        return [_nested(v, dtype.value_type) for v in value]
    if pa.types.is_struct(dtype):
        return {f.name: _nested(value.get(f.name), f.type) for f in dtype}
    return value


def _value(value, type_name: str):
    if value is None:
        return None
    if type_name == "float64":
        return _FLOATS[value] if isinstance(value, str) else float(value)
    if type_name in ("timestamp", "timestamptz"):
        return dt.datetime.fromisoformat(value)
    if type_name == "date":
        return dt.date.fromisoformat(value)
    if type_name.startswith("decimal("):
        return decimal.Decimal(value)  # written as text: "1.50"
    return value


def arrow_table(spec: dict) -> pa.Table:
    """A pyarrow table with the case's explicit column types."""
    columns = spec["columns"]
    rows = spec["rows"]
    for row in rows:
        assert len(row) == len(columns), f"row {row!r} does not have {len(columns)} values"
    arrays = [
        pa.array(
            [_nested(_value(row[i], type_name), arrow_type(type_name)) for row in rows], type=arrow_type(type_name)
        )
        for i, (_, type_name) in enumerate(columns)
    ]
    names = [name for name, _ in columns]
    return pa.Table.from_arrays(
        arrays, schema=pa.schema([pa.field(n, a.type) for n, a in zip(names, arrays, strict=True)])
    )


def load_cases() -> list[tuple[str, dict]]:
    """Every case of every ``cases/*.json`` file, as (id, case)."""
    out = []
    for path in sorted(CASES_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            out.append((f"{path.stem}/{case['name']}", case))
    return out


def with_extra_details(suite, case: dict):
    """The suite with the case's Griffin-only details, which the native syntax cannot spell
    (error.confs takes maps)."""
    for rule_name, extra in case.get("extra_details", {}).items():
        rule = next(r for r in suite.rules if r.name == rule_name)
        rule.details.update(copy.deepcopy(extra))
    return suite


def open_engine(name: str, remote: str | None = None):
    if name == "duckdb":
        from gryph.local_backend.engine import DuckDBEngine

        return DuckDBEngine()
    from gryph.client.spark import SparkEngine

    return SparkEngine(remote)


def decode_expected(value):
    """Expected values use the strings "NaN", "inf", "-inf" for those floats (JSON has none)."""
    if isinstance(value, dict):
        if set(value) == {"$float"}:
            return _FLOATS[value["$float"]]
        return {k: decode_expected(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_expected(v) for v in value]
    return value


def why_keys(expected: dict) -> set[str]:
    """The keys a case's ``why`` must explain: ``rule.metric`` for maps, ``rule`` for row lists."""
    keys = set()
    for rule, metrics in expected.items():
        if isinstance(metrics, dict):
            keys.update(f"{rule}.{metric}" for metric in metrics)
        else:
            keys.add(rule)
    return keys
