"""One lowering per DQ type: a checked rule becomes plan requests and a finishing step."""

from typing import Any, Callable, Protocol

from ..analysis.checked_rules import CheckedAccuracy, CheckedKeyedAccuracy, CheckedRule
from .accuracy import AccuracyLowering
from .common import Finisher, Options, RuleLowering
from .completeness import CompletenessLowering
from .duplicates import DistinctnessLowering, UniquenessLowering
from .griffin_matching import AccuracyMeasureLowering, DuplicationMeasureLowering
from .griffin_measure import RowConditionLowering
from .griffin_profiling import ProfilingMeasureLowering
from .keyed_accuracy import KeyedAccuracyLowering
from .measure import MeasureLowering
from .profiling import ProfilingLowering
from .sql import SqlLowering
from .timeliness import TimelinessLowering


class Lowering(Protocol):
    def lower(self) -> Finisher: ...


def accuracy_lowering(checked: CheckedRule, *args: Any) -> Lowering:
    """Statement-form accuracy (``@Key a === b; ...``) joins by key; the other forms anti-join."""
    if isinstance(checked, CheckedKeyedAccuracy):
        return KeyedAccuracyLowering(checked, *args)
    assert isinstance(checked, CheckedAccuracy)  # the check pass gives accuracy rules one of the two
    return AccuracyLowering(checked, *args)


# the lowering of each rule kind (measures: MeasureLowering)
LOWERINGS: dict[str, Callable[..., Lowering]] = {
    kind: cls
    for cls in (
        AccuracyLowering,
        CompletenessLowering,
        DistinctnessLowering,
        UniquenessLowering,
        ProfilingLowering,
        SqlLowering,
        TimelinessLowering,
        AccuracyMeasureLowering,
        DuplicationMeasureLowering,
        ProfilingMeasureLowering,
        RowConditionLowering,
    )
    for kind in cls.kinds
}
LOWERINGS["accuracy"] = accuracy_lowering

__all__ = ["LOWERINGS", "Finisher", "MeasureLowering", "Options", "RuleLowering"]
