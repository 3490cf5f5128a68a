"""Uniqueness and distinctness in a stream, as Griffin's streaming mode has them: with
``window = <time>``, a batch's values are counted against the stream's rows of the batches inside
the window. Those rows stay where the engine runs (a parquet file per batch, written by the
batch's own plan); uniqueness counts a value over those rows and the batch's, distinctness
(Griffin's ``dup`` and ``accu_dup``) against the earlier rows only."""

from __future__ import annotations

from dataclasses import dataclass, replace

from gryph.compiler.language.time_literals import duration_ms
from gryph.compiler.rule_kinds import RuleKind
from gryph.compiler.safe_names import safe_file_name
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import stream_schema
from gryph.compiler.suites.suite import RuleSpec, Suite, ViewSpec

from .kept_rows import batch_and_rows_since, rows_since

HISTORY_PREFIX = "__history_"


@dataclass(frozen=True)
class Windowed:
    """A uniqueness or distinctness rule over a stream that looks back ``window_ms``."""

    rule: RuleSpec
    window_ms: int

    @property
    def source(self) -> str:
        assert self.rule.source is not None  # windowed_rules took only rules that read a stream
        return self.rule.source


def windowed_rules(suite: Suite) -> list[Windowed]:
    found = []
    for rule in suite.rules:
        if rule.kind in (RuleKind.UNIQUENESS, RuleKind.DISTINCTNESS) and rule.source in suite.streams:
            window = duration_ms(rule.details.get("window"))
            if window:
                found.append(Windowed(rule, window))
    return found


def kept_windows(windowed: list[Windowed]) -> dict[str, int]:
    """Per stream source whose rows later batches read, the longest window that reads them."""
    longest: dict[str, int] = {}
    for rule in windowed:
        longest[rule.source] = max(longest.get(rule.source, 0), rule.window_ms)
    return longest


def rows_file(kept: str, source: str, number: int) -> str:
    """Where batch ``number`` leaves the rows of ``source`` (on the engine's side)."""
    return f"{kept}/rows/{safe_file_name(source)}/batch-{number}.parquet"


def with_windows(suite: Suite, windowed: list[Windowed], history: dict[str, list[str]], tmst: int) -> Suite:
    """``suite`` whose windowed rules count against the rows of ``history`` (files per source)
    inside their window: uniqueness over those rows and the batch's, distinctness against them."""
    sources, views, rules = dict(suite.sources), list(suite.views), list(suite.rules)
    for item in windowed:
        files = history.get(item.source)
        if not files:
            continue
        earlier = HISTORY_PREFIX + item.source
        sources[earlier] = SourceSpec(earlier, "parquet", tuple(files))
        columns, cutoff = stream_schema(suite.sources[item.source]).names, tmst - item.window_ms
        if item.rule.kind == RuleKind.UNIQUENESS:
            view, sql = f"__window_{item.rule.name}", batch_and_rows_since(columns, item.source, earlier, cutoff)
        else:
            view, sql = f"__older_{item.rule.name}", rows_since(columns, earlier, cutoff)
        views.append(ViewSpec(view, sql, item.rule.location))
        rules[rules.index(item.rule)] = replace(item.rule, target=view)
    return replace(suite, sources=sources, views=views, rules=rules)
