"""One lowering per DQ type: a checked rule becomes plan requests and a finishing step."""

from typing import Callable

from ..ruletree.nodes import StatementRule
from .accuracy import AccuracyLowering
from .common import Finisher, Options, RuleLowering
from .completeness import CompletenessLowering
from .duplicates import DistinctnessLowering, UniquenessLowering
from .griffin_matching import AccuracyMeasureLowering, DuplicationMeasureLowering
from .griffin_measure import CompletenessMeasureLowering, SchemaConformanceLowering, SparkSqlMeasureLowering
from .griffin_profiling import ProfilingMeasureLowering
from .keyed_accuracy import KeyedAccuracyLowering
from .measure import MeasureLowering
from .profiling import ProfilingLowering
from .sql import SqlLowering
from .timeliness import TimelinessLowering


def accuracy_lowering(rule, *args) -> RuleLowering:
    """Statement-form accuracy (``@Key a === b; ...``) joins by key; the other forms anti-join."""
    return (KeyedAccuracyLowering if isinstance(rule.body, StatementRule) else AccuracyLowering)(rule, *args)


LOWERINGS: dict[str, Callable[..., RuleLowering]] = {
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
        CompletenessMeasureLowering,
        DuplicationMeasureLowering,
        ProfilingMeasureLowering,
        SchemaConformanceLowering,
        SparkSqlMeasureLowering,
    )
    for kind in cls.kinds
}
LOWERINGS["accuracy"] = accuracy_lowering

__all__ = ["LOWERINGS", "Finisher", "Options", "RuleLowering"]
