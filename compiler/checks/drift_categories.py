"""Drift of a text or boolean column: its categories' shares now against the previous run's.

A run keeps its most frequent categories by name, the rest as ``other``, and NULL
(``compiler/suites/drift_frequencies.py``). The bins are NULL, each category whose count is known in
both runs (kept by name in both, or kept in one while the other run has no ``other`` at all, so its
count there is 0), then ``other``: a category kept in one run only, whose count in the other run is
hidden in that run's ``other``, joins ``other`` in both. Each bin's share is of all rows.
PSI is as for numbers (an empty bin counts as 0.0001); ``linf`` is the largest gap between a
bin's two shares (Deequ's categorical L-infinity distance, its ``linf_simple``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..suites.drift_frequencies import CATEGORIES, NULLS, OTHER
from ..suites.drift_sketches import ROWS
from .psi import psi_term


@dataclass(frozen=True, slots=True)
class Frequencies:
    """One run's counts: rows, NULLs, the rest beyond the kept categories, and the kept ones."""

    rows: int
    nulls: int
    other: int
    categories: dict[str, int]


def frequencies_of(row: dict[str, Any]) -> Frequencies:
    """A frequency measure's value (as run and as stored) as ``Frequencies``."""
    pairs = row.get(CATEGORIES) or []
    categories = {str(name): int(count) for name, count in pairs}
    return Frequencies(int(row.get(ROWS) or 0), int(row.get(NULLS) or 0), int(row.get(OTHER) or 0), categories)


def category_bins(before: Frequencies, now: Frequencies) -> tuple[list[tuple[str, int, int]], list[str], list[str]]:
    """The bins as (name, count before, count now), and the categories that appeared and vanished
    (counted in one run, known to be absent from the other)."""
    known = [name for name in {**before.categories, **now.categories} if _known(name, before) and _known(name, now)]
    bins = [("NULL", before.nulls, now.nulls)]
    bins += [(name, before.categories.get(name, 0), now.categories.get(name, 0)) for name in known]
    named_before, named_now = (sum(count for _, count, _ in bins[1:]), sum(count for _, _, count in bins[1:]))
    bins.append(("other", before.rows - before.nulls - named_before, now.rows - now.nulls - named_now))
    appeared = [name for name, was, is_ in bins[1:-1] if was == 0 and is_ > 0]
    vanished = [name for name, was, is_ in bins[1:-1] if was > 0 and is_ == 0]
    return bins, appeared, vanished


def _known(name: str, run: Frequencies) -> bool:
    return name in run.categories or run.other == 0


def compare_categories(
    before: Frequencies, now: Frequencies, method: str
) -> tuple[float, list[dict[str, object]], list[str], list[str]]:
    """PSI or linf of ``now`` against ``before`` (both with rows), each bin's shares of the rows
    (shown to four places; the statistic uses the exact ones), and the categories that appeared and vanished."""
    bins, appeared, vanished = category_bins(before, now)
    shares = [(was / before.rows, is_ / now.rows) for _, was, is_ in bins]
    if method == "psi":
        statistic = math.fsum(psi_term(was, is_) for was, is_ in shares)
    else:
        statistic = max(abs(is_ - was) for was, is_ in shares)
    last = len(bins) - 1
    shown = [
        # NULL and other are bins; a category has its own key, so one named "other" is not the rest
        {("bin" if i in (0, last) else "category"): name, "before": round(was, 4), "now": round(is_, 4)}
        for i, ((name, _, _), (was, is_)) in enumerate(zip(bins, shares, strict=True))
    ]
    return statistic, shown, appeared, vanished
