"""The check pass (``check_suite``): a parsed suite and its sources' schemas in, typed and
resolved rules out (``rules``), or a located error. Lowering reads only checked rules."""

from .check_pass import CheckedSuite, check_suite
from .checked_rules import CheckedRule

__all__ = ["CheckedRule", "CheckedSuite", "check_suite"]
