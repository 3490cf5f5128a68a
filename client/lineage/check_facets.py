"""A run's checks as OpenLineage sees tests: one ``dataQualityAssertions`` entry per check on each
source it judges, and one test execution per check in the run's ``test`` facet (the
``TestRunFacet`` of the client's version). Every text is redacted: a check's expression or value
may quote a secret the run registered."""

from __future__ import annotations

import json
from dataclasses import dataclass

from openlineage.client.generated.data_quality_assertions_dataset import Assertion
from openlineage.client.generated.test_run import TestExecution

from gryph.compiler.language.ruletree.nodes import SelectQuery
from gryph.compiler.redaction import redact
from gryph.compiler.suites.suite import Suite

from ..results.document import Check, Outcome, ResultDocument
from .measured_columns import one_column


@dataclass(frozen=True)
class JudgedCheck:
    """A check of the run, with what it judges: the sources, the column (where it is one) and its
    kind of assertion (the rule kind whose metric it reads, ``schema``, or ``check``)."""

    check: Check
    severity: str  # error | warn: what a failure does, declared by the suite
    sources: tuple[str, ...]
    column: str | None
    kind: str

    def assertion(self) -> Assertion:
        return Assertion(
            assertion=self.kind,
            success=self.check.outcome is Outcome.PASS,
            column=self.column,
            severity=self.severity,
            name=redact(self.check.name),
            expected=self._expected(),
            actual=self._actual(),
            content=redact(self.check.expression),
            contentType="expression",
        )

    def execution(self) -> TestExecution:
        return TestExecution(
            name=redact(self.check.name),
            status=self.check.outcome.value,
            severity=self.severity,
            type=self.kind,
            expected=self._expected(),
            actual=self._actual(),
            content=redact(self.check.expression),
            contentType="expression",
        )

    def _expected(self) -> str | None:
        bounds = " and ".join(f"{bound.op} {bound.value}" for bound in self.check.bounds)
        return redact(bounds) if bounds else None

    def _actual(self) -> str | None:
        values = list(self.check.values.values())
        if not values:
            return None
        shown = values[0] if len(values) == 1 else values
        return redact(shown if isinstance(shown, str) else json.dumps(shown, default=str, ensure_ascii=False))


def judged_checks(suite: Suite, document: ResultDocument) -> list[JudgedCheck]:
    """Each check of ``document`` with the sources and column it judges."""
    rules = {rule.name: rule for rule in suite.rules}
    measures = {measure.name: measure for measure in suite.measures}
    warns = {spec.name: spec.warn for spec in suite.checks} | {spec.name: spec.warn for spec in suite.schemas}
    schema_of = {spec.name: spec.source for spec in suite.schemas}
    judged = []
    for check in document.checks:
        sources: list[str] = [schema_of[check.name]] if check.name in schema_of else []
        kinds, columns = set(), set()
        for reference in (*check.reads, *([check.watches] if check.watches else [])):
            if reference.source == "measure" and reference.name in measures:
                body = measures[reference.name].body
                sources.append(body.source if isinstance(body, SelectQuery) and body.source else "")
                kinds.add("measure")
            elif reference.name in rules:
                rule = rules[reference.name]
                sources.append(rule.source or "")
                kinds.add(rule.kind)
                columns.add(one_column(rule.body))
        for rows in check.failing_rows.values():
            sources.append(rows.source)
            columns.add(rows.column)
        severity = "warn" if warns.get(check.name, check.status == "WARN") else "error"
        kind = "schema" if check.name in schema_of else kinds.pop() if len(kinds) == 1 else "check"
        columns.discard(None)
        column = columns.pop() if len(columns) == 1 else None
        known = tuple(dict.fromkeys(name for name in sources if name in suite.sources))
        judged.append(JudgedCheck(check, severity, known, column, kind))
    return judged
