"""The segments of the checks judged `by` a column: per check, its segments the worst first (failed,
then failed warnings, skipped, passed; within each, as the engine gave them, the most rows first),
each with its verdict, the values it read and a small trend of its value over the last runs; and
the warning of a rule or measure whose column held more segments than its cap. The trends are
drawn by hand as inline SVG lines: a check may have a thousand segments, too many for a chart each."""

from __future__ import annotations

from html import escape

from gryph.compiler.checks.segment_checks import VANISHED, segment_label

from ...results.document import Check, CheckSegment, ResultDocument
from ..readable_values import counted
from ..segments_text import cap_warnings
from ..text import cell
from .chart import is_number
from .page import badge

TREND_RUNS = 10  # the runs a segment's trend draws, the newest last
SHOWN = 50  # a check's segments listed; the rest (the best) counted below the table
WORST = {"FAIL": 0, "WARN": 1, "SKIP": 2, "PASS": 3}
WIDTH, HEIGHT, PAD = 120, 24, 3  # a trend's size in pixels


def segments_section(documents: list[ResultDocument]) -> str:
    """The section of the newest of ``documents`` (oldest first); empty without segments."""
    document = documents[-1]
    checks = [check for check in document.checks if check.segments]
    warnings = cap_warnings(document)
    if not checks and not warnings:
        return ""
    recent = documents[-TREND_RUNS:]
    parts = ['<section id="segments"><h2>Segments</h2>']
    parts += [f'<p class="cap-warning">{escape(warning)}</p>' for warning in warnings]
    parts += [_check_table(check, recent) for check in checks]
    parts.append("</section>")
    return "".join(parts)


def worst_first(check: Check) -> list[CheckSegment]:
    """A check's segments, failures first (a stable sort: each status keeps the engine's order)."""
    return sorted(check.segments, key=lambda segment: WORST.get(segment.status, len(WORST)))


def _check_table(check: Check, recent: list[ResultDocument]) -> str:
    ordered = worst_first(check)
    rows = []
    for segment in ordered[:SHOWN]:
        values = ", ".join(f"{text} = {cell(value)}" for text, value in segment.values.items())
        if segment.skipped:
            values = f"skipped: {segment.skipped}" + (f"; {values}" if values else "")
        elif segment.error:
            values = f"error: {segment.error}" + (f"; {values}" if values else "")
        rows.append(
            f'<tr class="segment-{escape(segment.status.lower())}"><td>{escape(segment_label(segment.value))}</td>'
            f"<td>{badge(segment.status)}</td><td>{escape(values)}</td>"
            f"<td>{sparkline(_history(check.name, segment, recent))}</td></tr>"
        )
    more = len(ordered) - SHOWN
    below = (
        f'<p class="muted">and {counted(more, "more segment")}, none worse than the last shown</p>' if more > 0 else ""
    )
    return (
        f"<h3>{badge(check.status)} {escape(check.name)}: {escape(failed_count(check))}</h3>"
        f'<table class="segments"><tr><th>segment</th><th>result</th><th>values read</th>'
        f"<th>last {len(recent)} runs</th></tr>{''.join(rows)}</table>{below}"
    )


def failed_count(check: Check) -> str:
    """How many of the segments the check judged failed, as its verdict counts them; a segment of
    the run before that is gone is a warning row of its own, counted apart."""
    gone = sum(1 for segment in check.segments if VANISHED in segment.values)
    judged = [segment for segment in check.segments if VANISHED not in segment.values]
    failed = sum(1 for segment in judged if segment.status in ("FAIL", "WARN"))
    return f"{failed} of {counted(len(judged), 'segment')} failed" + (f", {gone} vanished" if gone else "")


def _history(name: str, segment: CheckSegment, recent: list[ResultDocument]) -> list[float | None]:
    """The segment's first value read, in each of the recent runs (None: not there, or no number)."""
    if not segment.values:
        return []
    key = next(iter(segment.values))
    found: list[float | None] = []
    for document in recent:
        check = next((c for c in document.checks if c.name == name), None)
        same = [s for s in check.segments if _same(s.value, segment.value)] if check is not None else []
        value = same[0].values.get(key) if same else None
        found.append(value if isinstance(value, (int, float)) and is_number(value) else None)
    return found


def _same(a: object, b: object) -> bool:
    """The same segment: equal values of the same kind (text "1" is not the number 1)."""
    return type(a) is type(b) and a == b


def sparkline(values: list[float | None]) -> str:
    """A small line of ``values`` (oldest first, a gap where one is None), the newest a dot; its
    title lists them. Fewer than two numbers draw nothing."""
    known = [value for value in values if value is not None]
    if len(known) < 2:
        return '<span class="muted">—</span>'
    low, high = min(known), max(known)
    span = (high - low) or 1.0
    step = (WIDTH - 2 * PAD) / (len(values) - 1)

    def point(index: int, value: float) -> str:
        return f"{PAD + index * step:.1f},{HEIGHT - PAD - (value - low) / span * (HEIGHT - 2 * PAD):.1f}"

    runs: list[list[str]] = [[]]  # the line's pieces, parted at a missing value
    for index, value in enumerate(values):
        if value is None:
            runs.append([])
        else:
            runs[-1].append(point(index, value))
    lines = "".join(
        f'<polyline points="{" ".join(run)}" fill="none" stroke="#1565c0" stroke-width="1.5"/>' for run in runs if run
    )
    x, y = point(max(i for i, value in enumerate(values) if value is not None), known[-1]).split(",")
    title = " → ".join("—" if value is None else cell(value) for value in values)
    return (
        f'<svg class="trend" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img">'
        f'<title>{escape(title)}</title>{lines}<circle cx="{x}" cy="{y}" r="2.5" fill="#1565c0"/></svg>'
    )
