"""One lowering per DQ type: a checked rule becomes plan requests and a finishing step."""

from collections.abc import Callable
from typing import Protocol

from ..rule_kinds import RuleKind
from .accuracy import AccuracyLowering
from .common import Finisher, Options, RuleLowering
from .completeness import CompletenessLowering
from .duplicates import DistinctnessLowering, UniquenessLowering
from .freshness import FreshnessLowering
from .griffin_matching import AccuracyMeasureLowering, DuplicationMeasureLowering
from .griffin_measure import RowConditionLowering
from .griffin_profiling import ProfilingMeasureLowering
from .keyed_accuracy import KeyedAccuracyLowering
from .measure import MeasureLowering
from .profiling import ProfilingLowering
from .sql import SqlLowering
from .timeliness import TimelinessLowering
from .validity import ValidityLowering


class Lowering(Protocol):
    def lower(self) -> Finisher: ...


# the lowering of each rule kind, by its checked rule's kind (a native measure's: MeasureLowering,
# whose finisher gives a measure's result); tests hold it to the registry
LOWERINGS: dict[RuleKind, Callable[..., Lowering]] = {
    kind: cls
    for cls in (
        AccuracyLowering,
        KeyedAccuracyLowering,
        CompletenessLowering,
        DistinctnessLowering,
        UniquenessLowering,
        ProfilingLowering,
        SqlLowering,
        TimelinessLowering,
        FreshnessLowering,
        ValidityLowering,
        AccuracyMeasureLowering,
        DuplicationMeasureLowering,
        ProfilingMeasureLowering,
        RowConditionLowering,
    )
    for kind in cls.kinds
}

__all__ = ["LOWERINGS", "Finisher", "MeasureLowering", "Options", "RuleLowering"]
