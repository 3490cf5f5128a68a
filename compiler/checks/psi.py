"""The population stability index's term for one bin, shared by numbers' and categories' drift."""

from __future__ import annotations

import math

EMPTY_SHARE = 0.0001  # a bin's share when it holds nothing, so ln(now / before) stays finite


def psi_term(before: float, now: float) -> float:
    """(now - before) · ln(now / before), a share of 0 counted as ``EMPTY_SHARE``."""
    before, now = max(before, EMPTY_SHARE), max(now, EMPTY_SHARE)
    return (now - before) * math.log(now / before)
