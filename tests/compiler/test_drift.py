"""The drift statistics on small sketches, every expected value worked out by hand
(compiler/checks/drift.py: the CDF rises linearly between a sketch's 21 quantiles)."""

from __future__ import annotations

import math

import pytest

from gryph.compiler.checks.drift import Sketch, cdf, ks, psi

UNIFORM_0_20 = tuple(float(i) for i in range(21))  # quantiles 0, 1, ..., 20: F(x) = x / 20 on [0, 20]
UNIFORM_0_10 = tuple(i / 2 for i in range(21))  # quantiles 0, 0.5, ..., 10: F(x) = x / 10 on [0, 10]


def _sketch(quantiles: tuple[float, ...], rows: int = 100, nulls: int = 0, nans: int = 0) -> Sketch:
    return Sketch(rows, rows - nulls, nans, quantiles)


def test_the_cdf_is_linear_between_quantiles_and_jumps_at_a_repeated_one():
    assert cdf(UNIFORM_0_20, 5.0) == 0.25
    assert cdf(UNIFORM_0_20, 5.5) == pytest.approx(5.5 / 20)
    assert cdf(UNIFORM_0_20, -1.0) == 0.0 and cdf(UNIFORM_0_20, 20.0) == 1.0
    stepped = (1.0,) * 6 + (2.0,) * 15  # q0..q5 = 1, q6..q20 = 2: a quarter of the values are 1
    assert cdf(stepped, 1.0, left=True) == 0.0 and cdf(stepped, 1.0) == 0.25
    # just below 2: q5 = 1 then q6 = 2, so F rises from 5/20 to 6/20 over [1, 2), then jumps to 1
    assert cdf(stepped, 2.0, left=True) == pytest.approx(6 / 20) and cdf(stepped, 2.0) == 1.0


def test_identical_distributions_have_no_drift():
    same = _sketch(UNIFORM_0_20)
    assert psi(same, same)[0] == 0.0
    assert ks(UNIFORM_0_20, UNIFORM_0_20) == 0.0


def test_psi_of_a_distribution_squeezed_into_half_its_range():
    index, bins = psi(_sketch(UNIFORM_0_20), _sketch(UNIFORM_0_10))
    # bins [j, j+1) for j = 0..19 hold 1/20 each before; now [0, 10) holds 1/10 per bin and [10, 20) none
    # (0.0001 then). The null, NaN, below-0 and 20-and-above bins are empty in both: they add 0.
    # PSI = 10 * (0.1 - 0.05) ln(0.1 / 0.05) + 10 * (0.0001 - 0.05) ln(0.0001 / 0.05)
    #     = 0.5 ln 2 + 0.499 ln 500 = 0.346574 + 3.101089
    assert index == pytest.approx(0.5 * math.log(2) + 0.499 * math.log(500))
    assert index == pytest.approx(3.447663, abs=1e-6)
    assert [b["before"] for b in bins[3:23]] == [0.05] * 20
    assert [b["now"] for b in bins[3:23]] == [0.1] * 10 + [0.0] * 10
    assert bins[0] == {"bin": "NULL", "before": 0.0, "now": 0.0}


def test_psi_counts_nulls_and_nan_as_bins_of_their_own():
    # half of today's rows are NULL, the numbers spread as before: each number bin's share halves
    index, bins = psi(_sketch(UNIFORM_0_20, rows=10), _sketch(UNIFORM_0_20, rows=10, nulls=5))
    # 20 * (0.025 - 0.05) ln(0.5) + (0.5 - 0.0001) ln(0.5 / 0.0001) = 0.5 ln 2 + 0.4999 ln 5000
    assert index == pytest.approx(0.5 * math.log(2) + 0.4999 * math.log(5000))
    assert bins[0] == {"bin": "NULL", "before": 0.0, "now": 0.5}
    # a NaN share: 2 of 10 rows now, none before; the numbers' bins hold 0.8 of the rows
    index, bins = psi(_sketch(UNIFORM_0_20, rows=10), _sketch(UNIFORM_0_20, rows=10, nans=2))
    assert index == pytest.approx(20 * (0.04 - 0.05) * math.log(0.8) + (0.2 - 0.0001) * math.log(2000))
    assert bins[1] == {"bin": "NaN", "before": 0.0, "now": 0.2}


def test_values_beyond_the_previous_range_fall_in_the_outer_bins():
    shifted = tuple(q + 20 for q in UNIFORM_0_20)  # 20..40: all of it at or above the previous highest
    index, bins = psi(_sketch(UNIFORM_0_20), _sketch(shifted))
    assert bins[-1] == {"from": 20.0, "to": None, "before": 0.0, "now": 1.0}
    # 20 bins of 0.05 emptied, one bin of 0.0001 filled
    expected = 20 * (0.0001 - 0.05) * math.log(0.0001 / 0.05) + (1 - 0.0001) * math.log(1 / 0.0001)
    assert index == pytest.approx(expected)


def test_ks_is_the_largest_gap_between_the_cdfs():
    # x / 20 against x / 10: the gap grows to 0.5 at x = 10, then 1 - x / 20 shrinks
    assert ks(UNIFORM_0_20, UNIFORM_0_10) == pytest.approx(0.5)
    # a shift by 2 of a uniform on [0, 20]: the gap is 2 / 20 throughout [2, 20]
    assert ks(UNIFORM_0_20, tuple(q + 2 for q in UNIFORM_0_20)) == pytest.approx(0.1)
