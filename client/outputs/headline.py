"""The one line that says how a run went, shared by every output (text, Markdown, JUnit, HTML).

A run can pass its policy while checks fail (``pass when always``, warnings): the line says so,
and its tone is then ``warn``, never the green ``pass``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gryph.compiler.errors import UNLOCATED

from ..results.document import ResultDocument
from ..results.run_result import RunResult
from .readable_values import counted


@dataclass(frozen=True)
class Headline:
    text: str  # "passed (policy: always) — 2 of 5 checks failed"
    tone: str  # "pass" (nothing failed), "warn" (passed, but something failed), "fail" or "error" (it broke)


def headline(passed: bool, policy: str, statuses: Iterable[str], unfinished: int = 0, strict: bool = False) -> Headline:
    """How a run went: its verdict (``passed`` after ``strict``), its ``policy``, and what failed among
    its checks' ``statuses`` (PASS, FAIL, WARN, SKIP) and the ``unfinished`` rules and measures. A
    skipped check could not judge yet: it is counted apart, never among the checks that failed,
    and never changes the tone."""
    statuses = list(statuses)
    failed, warnings, skipped = statuses.count("FAIL"), statuses.count("WARN"), statuses.count("SKIP")
    judged = len(statuses) - skipped
    counts = []
    if failed + warnings:
        counts.append(f"{failed + warnings} of {counted(judged, 'check')} failed")
        if warnings and failed:
            counts.append(f"{warnings} of them {'a warning' if warnings == 1 else 'warnings'}")
        elif warnings:
            counts[-1] += " (a warning)" if warnings == 1 else " (warnings)"
    elif judged:
        counts.append("the check passed" if judged == 1 else f"all {judged} checks passed")
    if skipped:
        counts.append(f"{skipped} skipped" if judged else f"{counted(skipped, 'check')} skipped")
    if unfinished:
        counts.append(f"{counted(unfinished, 'rule or measure', 'rules or measures')} could not finish")
    verdict = f"{'passed' if passed else 'failed'} (policy: {policy}{', strict' if strict else ''})"
    tone = "fail" if not passed else ("warn" if failed + warnings + unfinished else "pass")
    return Headline(" — ".join([verdict, ", ".join(counts)]) if counts else verdict, tone)


def gate_passes(result: RunResult, strict: bool = False) -> bool:
    """Whether CI should go on: the pass policy holds, and with ``strict`` no warning failed."""
    return result.passed and not (strict and result.warnings_failed())


def gate_failures(result: RunResult, strict: bool = False) -> list[str]:
    """The checks that stop CI, by name: the failed ones, and with ``strict`` the failed warnings."""
    stopping = ("FAIL", "WARN") if strict else ("FAIL",)
    return [check.name for check in result.checks if check.status in stopping]


def run_headline(result: RunResult, strict: bool = False) -> Headline:
    """The headline of a finished run, as CI sees it (``strict`` included)."""
    if result.error is not None:
        return broke(result.error["code"], result.error["message"])
    statuses = [check.status for check in result.checks]
    return headline(gate_passes(result, strict), result.policy, statuses, len(result.failed), strict)


def document_headline(document: ResultDocument, strict: bool = False) -> Headline:
    """The headline of a result document read back (a stored run's, or a run's own), as CI sees it
    with ``strict``: a failed warning (status WARN) then fails it."""
    if document.error is not None:
        return broke(document.error.code, document.error.message)
    statuses = [check.status for check in document.checks]
    passed = document.passed and not (strict and "WARN" in statuses)
    return headline(passed, document.policy, statuses, len(document.failed), strict)


def broke(code: str, message: str) -> Headline:
    """The headline of a run that broke before its checks judged: the verdict and code first, then
    the error's first line, where it was last (``error CODE: unknown column 'age' (at s.dq:5:43)``)."""
    first = message.splitlines()[0] if message else ""
    where, said, rest = first.partition(f": error {code}: ")
    if not said:
        return Headline(f"error {code}: {first}".rstrip(": "), "error")
    at = f" (at {where})" if where and where != UNLOCATED else ""
    return Headline(f"error {code}: {rest}{at}", "error")


def error_text(code: str, message: str) -> str:
    """A broken run's error as one text, its code named once: a located error's message already
    says ``FILE:LINE:COL: error CODE: ...`` (a run keeps it whole, with its near: and hint:)."""
    first = message.splitlines()[0] if message else ""
    return message if f"error {code}:" in first else f"error {code}: {message}".rstrip(": ")
