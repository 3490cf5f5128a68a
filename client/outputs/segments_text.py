"""A segmented rule's metrics as a person reads them: the worst segments first, how a segment's
value is shown, and the warning naming the cap when the column held more values than it."""

from __future__ import annotations

from gryph.compiler.rule_kinds import RuleKind, metric_name

from ..results.document import ResultDocument, Rule, RuleSegments, Segment
from .readable_values import counted
from .visible_text import for_terminal

# per rule kind, the metric counting a segment's bad rows and the one counting all of them
BAD_OF_ALL = {RuleKind.COMPLETENESS: ("incomplete", "total"), RuleKind.VALIDITY: ("invalid", "total")}


def ordered(segments: RuleSegments, rule: Rule | None) -> tuple[list[Segment], str]:
    """The segments as a report lists them, and how: the worst first where the rule's kind counts
    bad rows, else the most rows first (as the engine gave them)."""
    if rule is None or rule.kind not in BAD_OF_ALL:
        return list(segments.values), "the most rows first"
    return worst_first(segments, rule), "the worst first"


def worst_first(segments: RuleSegments, rule: Rule) -> list[Segment]:
    """The segments with the largest share of bad rows first, then the largest."""
    bad, every = (metric_name(key, rule.details) for key in BAD_OF_ALL[rule.kind])

    def share(segment: Segment) -> tuple[float, int]:
        total = segment.metrics.get(every)
        count = segment.metrics.get(bad)
        if not isinstance(total, int) or not isinstance(count, int) or total == 0:
            return (0.0, 0)
        return (-count / total, -total)

    return sorted(segments.values, key=share)


def cap_warning(name: str, segments: RuleSegments) -> str:
    """The located warning of a rule whose column held more segments than its cap."""
    return for_terminal(
        f"{segments.at}: warning: {name} by {segments.column}: more than {counted(segments.cap, 'segment')}; "
        f"the {segments.cap} with the most rows {'is' if segments.cap == 1 else 'are'} kept "
        f"(write `by {segments.column} top N` to change the cap)"
    )


def cap_warnings(document: ResultDocument) -> list[str]:
    """The cap's warning of each rule and measure whose column held more segments than its cap."""
    segmented = [*document.segments.items(), *document.measure_segments.items()]
    return [cap_warning(name, segments) for name, segments in segmented if segments.capped]
