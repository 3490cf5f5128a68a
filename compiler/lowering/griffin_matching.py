"""Griffin generation-B measures that match rows by key: accuracy (against a reference source)
and duplication (within the source)."""

from __future__ import annotations

from ..analysis.checked_rules import CheckedMeasureAccuracy, CheckedMeasureDuplication
from ..analysis.equality import true_only
from ..plan import (
    AggFn,
    AggregateCall,
    Call,
    Distinct,
    Field,
    Filter,
    Fn,
    IsNull,
    Join,
    JoinKind,
    Literal,
    Named,
    Project,
    Read,
    Relation,
    Scalar,
    SortKey,
    Window,
    WindowCall,
    WindowFn,
    and_all,
    count_all,
    free_prefix,
    grouped_counts,
    not_,
)
from ..plan.data_types import BOOLEAN, INTEGER, STRING, Kind
from ..plan.histograms import COUNT
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher
from .griffin_measure import GriffinMeasureLowering
from .query_collector import Results

# kinds a window can order rows by on both engines alike
_ORDERABLE = (Kind.BOOLEAN, Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL, Kind.STRING, Kind.DATE, Kind.TIMESTAMP)


class AccuracyMeasureLowering(GriffinMeasureLowering[CheckedMeasureAccuracy]):
    """A source row is accurate when a reference row has equal values in every pair of columns.

    Griffin's rules, kept: equality is plain SQL equality, so a NULL source value never matches
    and its row is inaccurate; an unmatched row whose source values are all '' is accurate
    (Griffin compares ``coalesce(x, '')`` after its left join). The reference counts once per key.
    """

    kinds = (RuleKind.GRIFFIN_ACCURACY,)

    def lower(self) -> Finisher:
        checked = self.checked
        read, ref_read = self.read(checked.source), self.read(checked.reference)
        source_values, equalities = checked.source_values, list(checked.equalities)
        keys = Distinct(Project(ref_read, checked.reference_keys))
        unmatched: Relation = Join(JoinKind.ANTI, read, keys, and_all(equalities))
        if all(v.dtype.kind is Kind.STRING for v in source_values):
            blank = and_all([Call(Fn.EQ, (v, Literal("", STRING)), BOOLEAN) for v in source_values])
            unmatched = Filter(unmatched, not_(true_only(blank)))
        return self.good_and_bad(
            read, unmatched, self.collector.value(unmatched, count_all()), ("accurate", "inaccurate")
        )


class DuplicationMeasureLowering(GriffinMeasureLowering[CheckedMeasureDuplication]):
    """Rows grouped by key columns (NULL equal to NULL): a group of one row is ``unique``; in a
    larger group the first row is ``non_unique`` and the others ``duplicate``; ``distinct`` is the
    first row of every group. Rows whose keys are all NULL carry no flag but count in ``total``.

    Which row of a group is first decides only which rows the record output shows: gryph takes
    the least by the key columns, then the other columns (Griffin leaves it to Spark).
    """

    kinds = (RuleKind.GRIFFIN_DUPLICATION,)

    def lower(self) -> Finisher:
        read = self.read(self.checked.source)
        fields = list(self.checked.fields)
        keys = tuple(Named(f, f"__key{i}") for i, f in enumerate(fields))
        counted = grouped_counts(read, keys)
        count = Field(COUNT, INTEGER)
        keyed = not_(and_all([IsNull(Field(k.name, k.expr.dtype)) for k in keys]))
        single = and_all([keyed, Call(Fn.EQ, (count, Literal(1, INTEGER)), BOOLEAN)])
        extra = Call(Fn.SUBTRACT, (count, Literal(1, INTEGER)), INTEGER)
        refs = {
            "total": self.collector.value(read, count_all()),
            "distinct": self.collector.value(counted, count_all(filter=keyed)),
            "unique": self.collector.value(counted, count_all(filter=single)),
            "duplicate": self.collector.value(counted, AggregateCall(AggFn.SUM, (extra,), INTEGER, filter=keyed)),
        }
        flag = self.checked.flag
        # non_unique rows exist exactly when duplicate rows do
        presence = refs["duplicate" if flag == "non_unique" else flag]
        sample = self.bad_records(self._flagged(read, fields, flag), read.schema, presence)

        def finish(results: Results) -> RuleResult:
            values = {name: results.value(ref) or 0 for name, ref in refs.items()}
            metrics = {
                "total": values["total"],
                "duplicate": values["duplicate"],
                "unique": values["unique"],
                "non_unique": values["distinct"] - values["unique"],
                "distinct": values["distinct"],
            }
            return self.result(results, metrics, metrics[flag], sample)

        return finish

    def _flagged(self, read: Read, fields: list[Field], flag: str) -> Relation:
        """The rows carrying ``flag``, each numbered within its key group."""
        number, size = free_prefix("__row_number", read.schema), free_prefix("__group_size", read.schema)
        others = [Field(c.name, c.dtype) for c in read.schema.columns if Field(c.name, c.dtype) not in fields]
        order = tuple(SortKey(f) for f in fields + others if f.dtype.kind in _ORDERABLE)
        windowed = Window(
            read,
            (
                Named(WindowCall(WindowFn.ROW_NUMBER, tuple(fields), order), number),
                Named(WindowCall(WindowFn.COUNT_ALL, tuple(fields)), size),
            ),
        )
        first = Call(Fn.EQ, (Field(number, INTEGER), Literal(1, INTEGER)), BOOLEAN)
        alone = Call(Fn.EQ, (Field(size, INTEGER), Literal(1, INTEGER)), BOOLEAN)
        flags: dict[str, Scalar] = {
            "unique": alone,
            "distinct": first,
            "non_unique": and_all([first, not_(alone)]),
            "duplicate": not_(first),
        }
        keyed = not_(and_all([IsNull(f) for f in fields]))
        return Filter(windowed, and_all([keyed, flags[flag]]))
