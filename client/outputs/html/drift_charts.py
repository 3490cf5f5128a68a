"""A drift check's two distributions drawn side by side: the previous run's and this run's shares
of each PSI bin (or category, for PSI and linf) as paired bars, or their cumulative shares (from the quantiles) as two lines for KS."""

from __future__ import annotations

import json
from collections.abc import Mapping

import altair as alt

from .axes import WIDTH
from .chart import Chart, chart_id, is_number

HEIGHT = 160
RUNS = alt.Scale(domain=["before", "now"], range=["#9e9e9e", "#1565c0"])


def drift_chart(check: str, values: Mapping[str, object]) -> Chart | None:
    """The chart of a drift check's values (``compiler/checks/drift.py``), or None for any other check."""
    if ("psi" in values or "linf" in values) and isinstance(values.get("bins"), list):
        return _bins(check, values["bins"])  # type: ignore[arg-type]
    before, now = values.get("quantiles before"), values.get("quantiles now")
    if "ks" in values and isinstance(before, list) and isinstance(now, list):
        return _cumulative(check, before, now)
    return None


def _bins(check: str, bins: list[dict]) -> Chart:
    rows = [
        {"bin": _label(b), "order": i, "run": run, "share": b[run]}
        for i, b in enumerate(bins)
        for run in ("before", "now")
        if is_number(b.get(run))
    ]
    spec = (
        alt.Chart(alt.Data(values=rows))
        .mark_bar()
        .encode(
            x=alt.X("bin:N", sort=alt.EncodingSortField("order"), title=None, axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset("run:N", sort=["before", "now"]),
            y=alt.Y("share:Q", title="share of the rows", axis=alt.Axis(format="%")),
            color=alt.Color("run:N", scale=RUNS, title=None),
            tooltip=["bin:N", "run:N", alt.Tooltip("share:Q", format=".2%")],
        )
        .properties(width=WIDTH, height=HEIGHT)
    )
    return Chart(chart_id("drift", check), f"{check}: the shares of each bin, before and now", spec)


def _label(bin: dict) -> str:
    if "category" in bin:  # quoted: a category named NULL or other is not that bin
        return json.dumps(bin["category"], ensure_ascii=False)
    if "bin" in bin:
        return str(bin["bin"])
    low, high = bin.get("from"), bin.get("to")
    if low is None:
        return f"< {high:g}"
    return f"≥ {low:g}" if high is None else f"{low:g} – {high:g}"


def _cumulative(check: str, before: list, now: list) -> Chart:
    steps = len(before) - 1
    rows = [
        {"value": q, "share": i / steps, "run": run}
        for run, quantiles in (("before", before), ("now", now))
        for i, q in enumerate(quantiles)
        if is_number(q)
    ]
    spec = (
        alt.Chart(alt.Data(values=rows))
        .mark_line(point=True)
        .encode(
            x=alt.X("value:Q", title="value"),
            y=alt.Y("share:Q", title="share at or below", axis=alt.Axis(format="%")),
            color=alt.Color("run:N", scale=RUNS, title=None),
            order="share:Q",
        )
        .properties(width=WIDTH, height=HEIGHT)
    )
    return Chart(chart_id("drift", check), f"{check}: the cumulative shares, before and now", spec)
