"""The check pass (``check_suite``): a parsed suite and its sources' schemas in, typed and
resolved rules out (``rules``), or a located error. Lowering reads only checked rules."""

from .checked_rules import CheckedRule
from .check_pass import CheckedSuite, check_suite

__all__ = ["CheckedRule", "CheckedSuite", "check_suite"]
