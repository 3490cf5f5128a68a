"""Which rules of a stream's suite read kept rows (kept_rows.py's ``KEPT_READS``), and the suite
of one batch that reads the rows the stream declares it kept: each kept input a parquet source,
each reading rule a view over it (``ViewSpec.kept``) read in place of its side."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..language.time_literals import duration_ms
from ..rule_kinds import RuleKind
from ..sources.source_specs import SourceSpec
from .kept_rows import KEPT_READS, KeptRead, KeptRole, KeptRows, KeptView
from .suite import RuleSpec, Suite, ViewSpec

_READING_KINDS = frozenset(kind.value for kind in KEPT_READS)


@dataclass(frozen=True)
class KeptReader:
    """A rule that reads the rows its ``read`` keeps of ``stream`` (a stream, or a view of one)
    ``window_ms`` back."""

    rule: RuleSpec
    read: KeptRead
    stream: str
    window_ms: int

    @property
    def of(self) -> str:
        """What the kept rows belong to: the rule (its misses) or the stream (its rows)."""
        return self.rule.name if self.read.role is KeptRole.MISSES else self.stream

    def since(self, tmst: int) -> int:
        """The oldest batch time whose kept rows a batch of time ``tmst`` reads."""
        return tmst - self.window_ms


def kept_readers(suite: Suite) -> list[KeptReader]:
    """The suite's rules that read kept rows: a window detail set, over a side that is streamed."""
    found = []
    for rule in suite.rules:
        reads = KEPT_READS[RuleKind(rule.kind)] if rule.kind in _READING_KINDS else ()
        for read in reads:
            window, stream = duration_ms(rule.details.get(read.detail)), getattr(rule, read.keeps)
            if window and stream in suite.streamed:
                found.append(KeptReader(rule, read, stream, window))
    return found


def longest_windows(readers: Iterable[KeptReader], role: KeptRole) -> dict[str, int]:
    """Per owner of kept rows of ``role``, the longest window that reads them."""
    longest: dict[str, int] = {}
    for reader in readers:
        if reader.read.role is role:
            longest[reader.of] = max(longest.get(reader.of, 0), reader.window_ms)
    return longest


def reading_kept(suite: Suite, readers: Iterable[KeptReader], kept: Iterable[KeptRows]) -> Suite:
    """``suite`` (a batch, ``timestamp_ms`` its time; ``readers``: the stream's ``kept_readers``,
    found before its sources were bounded to the batch) whose rules read the ``kept`` rows inside
    their windows; a rule whose rows were not kept (a first batch) reads its batch alone."""
    declared = {(rows.role, rows.of): rows for rows in kept}
    sources, views, rules = dict(suite.sources), list(suite.views), list(suite.rules)
    taken = set(sources) | {view.name for view in views} | {rule.name for rule in rules}
    kept_sources: dict[KeptRows, str] = {}
    for reader in readers:
        rows = declared.get((reader.read.role, reader.of))
        if rows is None or not rows.files:
            continue
        if rows not in kept_sources:  # one source per kept input, however many rules read it
            kept_sources[rows] = _free(f"__kept_{rows.role.value}_{rows.of}", taken)
            sources[kept_sources[rows]] = SourceSpec(kept_sources[rows], "parquet", rows.files)
        source = kept_sources[rows]
        rule, read = reader.rule, reader.read
        view = _free(f"__reads_{read.detail}_{rule.name}", taken)
        batch = getattr(rule, read.keeps) if read.batch_too else None
        since = reader.since(suite.timestamp_ms or 0)
        views.append(ViewSpec(view, "", rule.location, kept=KeptView(source, since, batch)))
        _read_instead(rules, rule.name, read, getattr(rule, read.into), view)
    return replace(suite, sources=sources, views=views, rules=rules)


def _free(name: str, taken: set[str]) -> str:
    """``name``, or ``name`` with a number, that no source, view or rule of the suite has; now taken."""
    free, number = name, 1
    while free in taken:
        number += 1
        free = f"{name}_{number}"
    taken.add(free)
    return free


def _read_instead(rules: list[RuleSpec], name: str, read: KeptRead, side: str | None, view: str) -> None:
    """The rule named ``name`` reading ``view`` as its ``read.into`` side (a rule may read several
    kept inputs: each finds the others' changes)."""
    index = next(i for i, rule in enumerate(rules) if rule.name == name)
    rule = rules[index]
    if read.renamed:
        assert side is not None  # a renamed side is one the rule names (accuracy's source, target)
        rules[index] = replace(rule, reads={**rule.reads, side: view})
    else:
        rules[index] = replace(rule, target=view)
