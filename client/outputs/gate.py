"""CI outputs of a run: the exit verdict, JUnit XML (one testcase per check) and a Markdown summary."""

from __future__ import annotations

import re

from ..results.document import Check, Outcome, Severity
from ..results.run_result import RunResult
from .headline import gate_passes, run_headline
from .readable_values import counted
from .text import cell, check_details, failing_rows_text
from .visible_text import for_markdown, spelled

__all__ = ["gate_passes", "to_junit", "to_markdown"]


def to_junit(result: RunResult, strict: bool = False) -> str:
    """JUnit XML: a failed check is a <failure> (an <error> when it could not be evaluated) carrying
    the values it read, a passed one its values as <system-out>; a failed warning is <skipped>, or a failure with ``strict``; a check that
    could not judge yet (SKIP) is <skipped/> with its reason."""
    import xml.etree.ElementTree as ET  # only runs that write JUnit pay for loading it

    cases = []
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    for check in result.document(redacted=False).checks:
        case = ET.Element("testcase", classname=f"gryph.{result.name}", name=check.name, time="0")
        if check.outcome is not Outcome.PASS:
            kind = _junit_kind(check, strict)
            counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[kind]] += 1
            details = check_details(check)
            message = details if check.error or check.skipped else f"{check.expression} is not true: {details}"
            element = ET.SubElement(case, kind, message=message)
            if kind != "skipped":
                element.set("type", "CheckError" if check.error else "CheckFailed")
                # the rows it failed on, as the text report shows them
                element.text = "\n".join([check.expression, *failing_rows_text(check)])
        elif details := check_details(check):  # what a pass read (and what it could not compare), as the text shows
            ET.SubElement(case, "system-out").text = details
        cases.append(case)
    attributes = {
        "name": result.name,
        "tests": str(len(cases)),
        **{key: str(value) for key, value in counts.items()},
        "time": f"{result.duration_seconds:.3f}",
        "timestamp": result.started,
    }
    root = ET.Element("testsuites", {**attributes, "name": "gryph"})
    del root.attrib["timestamp"]
    suite = ET.SubElement(root, "testsuite", attributes)
    properties = ET.SubElement(suite, "properties")
    verdict = run_headline(result, strict).text
    for name, value in (
        ("engine", result.engine),
        ("policy", result.policy),
        ("pass", str(result.passed).lower()),
        ("verdict", verdict),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    suite.extend(cases)
    ET.indent(root)
    return _xml_chars(ET.tostring(root, encoding="unicode", xml_declaration=True)) + "\n"


# what XML 1.0 cannot hold even as a character reference: C0 controls but tab, LF and CR; lone
# surrogates; U+FFFE and U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_chars(text: str) -> str:
    """``text`` with each character XML forbids spelled as its escape (``\\x01``), so every parser
    reads the file and the reader still sees which character it was."""
    return _NOT_XML.sub(spelled, text)


def _junit_kind(check: Check, strict: bool) -> str:
    # not judged yet is never a failure
    if (check.severity is Severity.WARNING and not strict) or check.outcome is Outcome.SKIP:
        return "skipped"
    return "error" if check.error else "failure"


def to_markdown(result: RunResult, strict: bool = False) -> str:
    """A summary for a CI job page: verdict, measures, and checks with the values they read. Every
    name and value goes through ``for_markdown``: data cannot add rows, markup or HTML."""
    verdict = run_headline(result, strict)
    icon = {"pass": "✅", "warn": "⚠️", "fail": "❌", "error": "❌"}[verdict.tone]
    lines = [
        f"## {icon} gryph: suite {for_markdown(result.name)} {for_markdown(verdict.text)}",
        "",
        f"Engine {result.engine}, started {result.started}, {result.duration_seconds:.2f} s, "
        f"pass when {for_markdown(result.policy)}{' (strict)' if strict else ''}.",
        "",
    ]
    if result.measures:
        lines += ["| measure | value |", "|---|---|"]
        lines += [f"| {for_markdown(name)} | {for_markdown(cell(value))} |" for name, value in result.measures.items()]
        lines.append("")
    checks = result.document(redacted=False).checks
    if checks:
        lines += ["| check | result | details |", "|---|---|---|"]
        for check in checks:
            status = {"PASS": "✅ PASS", "FAIL": "❌ FAIL", "WARN": "⚠️ WARN", "SKIP": "⏭️ SKIP"}[check.status]
            lines.append(f"| {for_markdown(check.name)} | {status} | {for_markdown(check_details(check))} |")
        lines.append("")
    if not checks and not result.measures:
        lines += [f"{counted(len(result.metrics), 'rule')} ran; no checks.", ""]
    return "\n".join(lines)
