"""Compiling suites without an engine: schemas come from ``source`` declarations or are given."""

from __future__ import annotations

from gryph.compiler.compile import compile_suite
from gryph.compiler.lowering import Options
from gryph.compiler.plan import format_plan
from gryph.compiler.plan.data_types import DOUBLE, INTEGER, STRING, TIMESTAMP, schema
from gryph.compiler.suites.native_suites import parse_suite

USERS = schema(
    ("user_id", INTEGER),
    ("first_name", STRING),
    ("age", INTEGER),
    ("score", DOUBLE),
    ("created_ts", TIMESTAMP),
    ("null_count", INTEGER),
    ("source_id", INTEGER),
)
ORDERS = schema(("order_id", INTEGER), ("user_id", INTEGER), ("ts", INTEGER), ("end_ts", INTEGER), ("country", STRING))
SCHEMAS = {"users": USERS, "orders": ORDERS}


def compile_text(text: str, schemas=None, options: Options | None = None):
    """Parse and compile a suite whose rules read the given (frame-like) sources."""
    schemas = dict(SCHEMAS if schemas is None else schemas)
    suite = parse_suite(text, known_sources=tuple(schemas))
    for name, spec in suite.sources.items():
        if spec.schema is not None:
            schemas[name] = spec.schema
    return compile_suite(suite, schemas, options or Options())


def where_of(condition: str) -> str:
    """The FILTER text of ``count(*) where <condition>`` over users."""
    plan = format_plan(compile_text(f"profiling p on users: count(*) as n where {condition}").plan)
    start = plan.index("FILTER (WHERE ") + len("FILTER (WHERE ")
    return plan[start : plan.index(") AS m0")]
