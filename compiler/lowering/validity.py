"""Validity: how many source rows meet every named condition, how many fail each, and a sample of
the invalid rows with the conditions each failed."""

from __future__ import annotations

from ..analysis.checked_rules import CheckedValidity
from ..plan import Call, Field, Filter, Fn, IfThen, Literal, Named, Project, Relation, count_all, or_all
from ..plan.data_types import STRING
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering, positive
from .query_collector import Results
from .segments import SegmentRefs

# the column of a sampled invalid row that names the conditions it failed, comma-separated
FAILED_COLUMN = "_dq_failed"


class ValidityLowering(RuleLowering[CheckedValidity]):
    kinds = (RuleKind.VALIDITY,)

    def lower(self) -> Finisher:
        rule = self.rule
        read = self.read(self.checked.source)
        failures = self.checked.failures()
        invalid = or_all(list(failures.values()))
        total_ref = self.collector.value(read, count_all())
        invalid_ref = self.collector.value(read, count_all(filter=invalid))
        failed_refs = {name: self.collector.value(read, count_all(filter=fails)) for name, fails in failures.items()}
        sample_ref = self.sample(self.invalid_rows(Filter(read, invalid)), "invalidRecords", positive(invalid_ref))
        names = self.metric_names()

        segment = self.checked.segment
        if segment is not None:
            segments = SegmentRefs(self, read, segment)
            segment_refs = (
                segments.value(count_all()),
                segments.value(count_all(filter=invalid)),
                {name: segments.value(count_all(filter=fails)) for name, fails in failures.items()},
            )

        def metrics(total: int | None, bad: int | None, failed: dict[str, int | None]) -> dict[str, int]:
            total, bad = total or 0, bad or 0
            row = {names["total"]: total, names["valid"]: total - bad, names["invalid"]: bad}
            row.update({name: count or 0 for name, count in failed.items()})
            return row

        def finish(results: Results) -> RuleResult:
            bad = results.value(invalid_ref) or 0
            failed = {name: results.value(ref) for name, ref in failed_refs.items()}
            by_segment = None
            if segment is not None:
                totals, invalids, fails = segment_refs
                by_segment = segments.finish(
                    results,
                    lambda get: metrics(get(totals), get(invalids), {name: get(ref) for name, ref in fails.items()}),
                )
            return RuleResult(
                rule.name,
                rule.kind,
                [self.write([metrics(results.value(total_ref), bad, failed)])],
                [self.record(results, "invalidRecords", bad, sample_ref)],
                segments=by_segment,
            )

        return finish

    def invalid_rows(self, rows: Filter) -> Relation:
        """The invalid rows with one more column naming the conditions each failed, in the rule's order."""
        failed = Call(
            Fn.CONCAT_WS,
            (
                Literal(", ", STRING),
                *(
                    IfThen(((fails, Literal(name, STRING)),), Literal(None, STRING), STRING)
                    for name, fails in self.checked.failures().items()
                ),
            ),
            STRING,
        )
        columns = [Named(Field(c.name, c.dtype), c.name) for c in rows.schema.columns]
        return Project(rows, (*columns, Named(failed, FAILED_COLUMN)))
