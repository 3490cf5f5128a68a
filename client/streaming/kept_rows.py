"""The views a stream's batch reads beside its own rows: rows earlier batches left on the
engine's side (parquet files written from the same relation, so their columns stand in the same
order), those at least as recent as a cutoff batch time.

The SQL is made here from names (quoted) and integer times only: nothing a user wrote is pasted
into it."""

from __future__ import annotations

from dataclasses import replace

from gryph.compiler.sources.stream_sources import TMST
from gryph.compiler.spark_dialect.spark_names import quoted
from gryph.compiler.suites.suite import RuleSpec


def rows_since(table: str, cutoff: int) -> str:
    """``table``'s rows whose ``__tmst`` is at least ``cutoff``."""
    return f"SELECT * FROM {quoted(table)} WHERE {quoted(TMST)} >= {int(cutoff)}"


def batch_and_rows_since(batch: str, table: str, cutoff: int) -> str:
    """The batch's rows, then ``rows_since(table, cutoff)``."""
    return f"SELECT * FROM {quoted(batch)} UNION ALL {rows_since(table, cutoff)}"


def changed_rule(rules: list[RuleSpec], name: str, **changes: object) -> None:
    """Replace the rule named ``name`` in ``rules`` with a copy changed as given (a rule may be
    changed by several of a batch's steps: each finds the others' changes)."""
    index = next(i for i, rule in enumerate(rules) if rule.name == name)
    rules[index] = replace(rules[index], **changes)  # type: ignore[arg-type]
