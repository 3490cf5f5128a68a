"""Spark SQL rules (Griffin's ``spark-sql`` dsl.type): the text runs as is; its rows are the metric
when the rule has a metric output."""

from __future__ import annotations

from ..analysis.checked_rules import CheckedRule
from ..errors import ResultError
from ..plan import Sql
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering
from .profiling import ROW_LIMIT
from .query_collector import Results


class SqlLowering(RuleLowering[CheckedRule]):
    kinds = (RuleKind.SQL,)

    def lower(self) -> Finisher:
        rule = self.rule
        relation = Sql(str(rule.body), tuple(self.schemas))
        # later rules may read this rule's result by its name, as in Griffin
        self.collector.view(rule.name, relation)
        if rule.metric is None:
            # Griffin writes a spark-sql rule's rows only through a metric output: without one
            # the rule is an intermediate step that later rules read
            return lambda results: RuleResult(rule.name, rule.kind, [])
        ref = self.collector.rows(relation, ROW_LIMIT + 1)

        def finish(results: Results) -> RuleResult:
            rows = results.rows(ref)
            if len(rows) > ROW_LIMIT:
                raise ResultError(
                    "TOO_MANY_ROWS",
                    f"sql rule {rule.name!r} returns more than {ROW_LIMIT} rows",
                    location=rule.location,
                    text=None,
                    hint="aggregate or limit the query",
                )
            return RuleResult(rule.name, rule.kind, [self.write(rows)], rows_metric=True)

        return finish
