"""One lowering per DQ type: a checked rule becomes plan requests and a finishing step."""

from .accuracy import AccuracyLowering
from .common import Finisher, Options, RuleLowering
from .completeness import CompletenessLowering
from .duplicates import DistinctnessLowering, UniquenessLowering
from .measure import MeasureLowering
from .profiling import ProfilingLowering
from .sql import SqlLowering
from .timeliness import TimelinessLowering

LOWERINGS: dict[str, type[RuleLowering]] = {
    kind: cls
    for cls in (AccuracyLowering, CompletenessLowering, DistinctnessLowering, UniquenessLowering,
                ProfilingLowering, SqlLowering, TimelinessLowering, MeasureLowering)
    for kind in cls.kinds
}

__all__ = ["LOWERINGS", "Finisher", "Options", "RuleLowering"]
