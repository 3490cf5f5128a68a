"""What a trend line measures, so that lines of one kind share a chart and an axis: counts (whole
numbers), fractions (percentages), durations (in the unit that fits), points in time, and plain
numbers. A rule's metrics are known by its kind; a measure's or a query's columns by their values."""

from __future__ import annotations

from dataclasses import dataclass

import altair as alt

from gryph.compiler.rule_kinds import KindSpec, RuleKind, metric_name, spec_of

from .axes import PERCENT_AXIS, count_axis, duration_unit

# metric roles that are no count, by what they measure; every other role of a rule kind counts rows
# (freshness's newest is a time, in epoch ms)
_ROLE_SCALES = {
    "matchedFraction": "fraction",
    "avg": "duration",
    "percentile": "duration",
    "age_ms": "duration",
    "newest": "time",
}
KIND_NAMES = frozenset(kind.value for kind in RuleKind)
# a line of fractions or durations is read for its changes: the axis spans its values, not 0
_near = alt.Scale(zero=False)


def metric_scale(kind: object, details: dict, key: str) -> str | None:
    """The scale of a rule's metric ``key`` (renamed in its ``details`` or not); None when its kind
    does not say (a query's columns, Griffin's metric maps)."""
    if kind not in KIND_NAMES:
        return None
    specs = [spec_of(str(kind))] + [spec for spec in map(spec_of, KIND_NAMES) if spec.form_of == RuleKind(kind)]
    for role in _roles(specs):
        name = metric_name(role, details)
        if key == name or (role == "percentile" and key.startswith(f"{name}_")):
            return _ROLE_SCALES.get(role, "count")
    return None


def _roles(specs: list[KindSpec]) -> list[str]:
    return list(dict.fromkeys(role for spec in specs for role in spec.metrics))


def by_values(values: list[float]) -> str:
    """The scale of a line nothing else describes: whole numbers, or numbers."""
    return "whole" if all(float(v).is_integer() for v in values) else "number"


@dataclass(frozen=True)
class Scale:
    """How one chart's lines are drawn: the field its y axis reads, the axis, and the factor a
    value is divided by to be placed on it (a duration's unit)."""

    kind: str
    field: str
    size: int
    y: alt.Y


def scale_of(kind: str, values: list[float]) -> Scale:
    """The y axis of a chart of ``kind`` holding ``values`` (raw: durations in ms)."""
    if kind == "fraction":
        return Scale(kind, "value", 1, alt.Y("value:Q", axis=alt.Axis(format=PERCENT_AXIS, title=None), scale=_near))
    if kind == "duration":
        unit, size = duration_unit(max((abs(v) for v in values), default=0))
        field = "y" if size != 1 else "value"
        return Scale(kind, field, size, alt.Y(f"{field}:Q", title=unit, scale=_near))
    if kind == "time":
        return Scale(kind, "value", 1, alt.Y("value:T", title="UTC", scale=alt.Scale(type="utc")))
    if kind in ("count", "whole"):
        largest = max((abs(v) for v in values), default=1)
        return Scale(kind, "value", 1, alt.Y("value:Q", axis=count_axis(None, largest)))
    return Scale(kind, "value", 1, alt.Y("value:Q", title=None, scale=_near))
