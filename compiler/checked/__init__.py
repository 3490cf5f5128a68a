"""The check pass (``check_suite``): a parsed suite and its sources' schemas in, typed and
resolved rules out (``rules``), or a located error. Lowering reads only checked rules."""

from .rules import CheckedRule
from .suite import CheckedSuite, check_suite

__all__ = ["CheckedRule", "CheckedSuite", "check_suite"]
