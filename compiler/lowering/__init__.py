"""One lowering per DQ type: a checked rule becomes plan requests and a finishing step."""

from typing import Any, Callable

from ..checked.rules import CheckedKeyedAccuracy, CheckedRule
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


def accuracy_lowering(checked: CheckedRule, *args: Any) -> RuleLowering[Any]:
    """Statement-form accuracy (``@Key a === b; ...``) joins by key; the other forms anti-join."""
    if isinstance(checked, CheckedKeyedAccuracy):
        return KeyedAccuracyLowering(checked, *args)
    return AccuracyLowering(checked, *args)


LOWERINGS: dict[str, Callable[..., RuleLowering[Any]]] = {
    kind: cls
    for cls in (
        AccuracyLowering,
        CompletenessLowering,
        DistinctnessLowering,
        UniquenessLowering,
        ProfilingLowering,
        SqlLowering,
        TimelinessLowering,
        MeasureLowering,
        AccuracyMeasureLowering,
        DuplicationMeasureLowering,
        ProfilingMeasureLowering,
        RowConditionLowering,
    )
    for kind in cls.kinds
}
LOWERINGS["accuracy"] = accuracy_lowering

__all__ = ["LOWERINGS", "Finisher", "Options", "RuleLowering"]
