"""Rules that count a batch against a stream's earlier rows, as Griffin's streaming mode has them:
``uniqueness ... with window = 24h`` counts a value over the rows of the batches inside the
window and the batch's, ``distinctness ... with window = 24h`` (Griffin's ``dup`` and
``accu_dup``) against the earlier rows only, and ``accuracy ... with lookback = 2m`` matches the
batch against a streaming target's rows of the batches inside the window and its own batch.
Those rows stay where the engine runs: a parquet file per batch, written by the batch's own plan.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gryph.compiler.language.time_literals import duration_ms
from gryph.compiler.rule_kinds import RuleKind
from gryph.compiler.safe_names import safe_file_name
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.suites.suite import RuleSpec, Suite, ViewSpec

from .kept_rows import batch_and_rows_since, changed_rule, rows_since

HISTORY_PREFIX = "__history_"
# per rule kind: the detail that sets its window, and whose rows it reads again
_WINDOWS = {
    RuleKind.UNIQUENESS: ("window", "source"),
    RuleKind.DISTINCTNESS: ("window", "source"),
    RuleKind.ACCURACY: ("lookback", "target"),
}


@dataclass(frozen=True)
class Windowed:
    """A rule that reads the rows of ``kept`` (a stream, or a view of one) ``window_ms`` back."""

    rule: RuleSpec
    kept: str
    window_ms: int


def windowed_rules(suite: Suite) -> list[Windowed]:
    found = []
    for rule in suite.rules:
        if rule.kind not in _WINDOWS:
            continue
        detail, role = _WINDOWS[RuleKind(rule.kind)]
        kept = getattr(rule, role)
        window = duration_ms(rule.details.get(detail))
        if window and kept in suite.streamed:
            found.append(Windowed(rule, kept, window))
    return found


def kept_windows(windowed: list[Windowed]) -> dict[str, int]:
    """Per stream (or view of one) whose rows later batches read, the longest window that reads them."""
    longest: dict[str, int] = {}
    for item in windowed:
        longest[item.kept] = max(longest.get(item.kept, 0), item.window_ms)
    return longest


def rows_file(kept: str, name: str, number: int) -> str:
    """Where batch ``number`` leaves the rows of ``name`` (on the engine's side, under ``kept``)."""
    return f"{kept}/rows/{safe_file_name(name)}/batch-{number}.parquet"


def batch_number(path: Path) -> int:
    """The batch number in a kept file's or folder's name (``batch-12``, ``batch-12.parquet``); -1 for any other."""
    digits = path.name.removeprefix("batch-").removesuffix(".parquet")
    return int(digits) if digits.isdigit() else -1


def with_windows(suite: Suite, windowed: list[Windowed], history: dict[str, list[str]], tmst: int) -> Suite:
    """``suite`` whose windowed rules read the rows of ``history`` (files per stream) inside their window."""
    sources, views, rules = dict(suite.sources), list(suite.views), list(suite.rules)
    for item in windowed:
        files = history.get(item.kept)
        if not files:
            continue
        earlier, cutoff, rule = HISTORY_PREFIX + item.kept, tmst - item.window_ms, item.rule
        sources[earlier] = SourceSpec(earlier, "parquet", tuple(files))
        view = f"__window_{rule.name}"
        if rule.kind == RuleKind.DISTINCTNESS:  # against the earlier rows only
            views.append(ViewSpec(view, rows_since(earlier, cutoff), rule.location))
            changed_rule(rules, rule.name, target=view)
            continue
        views.append(ViewSpec(view, batch_and_rows_since(item.kept, earlier, cutoff), rule.location))
        if rule.kind == RuleKind.UNIQUENESS:
            changed_rule(rules, rule.name, target=view)
        else:  # accuracy: the target's columns keep the target's name
            reads = next(r.reads for r in rules if r.name == rule.name)
            changed_rule(rules, rule.name, reads={**reads, item.kept: view})
    return replace(suite, sources=sources, views=views, rules=rules)
