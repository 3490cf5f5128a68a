"""A suite's ``quarantine SOURCE to "PATH"`` and ``valid SOURCE to "PATH"`` statements, checked:
the source is declared and a row-level rule reads it, the folder lies inside the suite's folder,
and each output is named once."""

from __future__ import annotations

from pathlib import Path

from ..errors import InvalidInput, did_you_mean
from ..language.ruletree.statements import OutputDecl
from ..rule_kinds import RuleKind
from .suite import Suite

# the rule kinds whose failures are rows of their source (compiler/lowering/row_failures.py)
ROW_KINDS = (RuleKind.COMPLETENESS, RuleKind.VALIDITY, RuleKind.ACCURACY, RuleKind.UNIQUENESS)


def row_level_sources(suite: Suite) -> list[str]:
    """The sources whose rows a row-level rule judges, in name order (uniqueness against another
    target judges values, not rows)."""
    return sorted(
        {
            rule.source
            for rule in suite.rules
            if rule.source and rule.kind in ROW_KINDS and not (rule.kind == RuleKind.UNIQUENESS and rule.target)
        }
    )


def split_output(statement: OutputDecl, suite: Suite, base: Path, known_sources: tuple[str, ...]) -> tuple[str, str]:
    """The folder of one output statement, as a path from the current folder, and its format."""
    source, kind = statement.source, statement.kind
    if source not in suite.sources and source not in known_sources:
        raise InvalidInput(
            "UNKNOWN_SOURCE",
            f"{kind} {source!r} names an unknown source",
            location=statement.location,
            text=source,
            hint=did_you_mean(source, list(suite.sources)) or 'declare it first: source NAME = csv("path")',
        )
    problem = None
    if (source, kind) in suite.outputs:
        problem = f"is the second {kind} folder of source {source!r}"
    elif source not in row_level_sources(suite):
        problem = f"holds rows of source {source!r}, which no completeness, validity, accuracy or uniqueness rule reads"
    elif kind == "valid" and (source, "quarantine") not in suite.outputs:
        problem = f"comes before a 'quarantine {source} to ...' statement"
    elif Path(statement.path).is_absolute() or not _inside(base / statement.path, base):
        problem = "is outside the suite's folder"
    if problem is not None:
        raise InvalidInput(
            "QUARANTINE_TARGET",
            f"{kind} folder {statement.path!r} {problem}",
            location=statement.location,
            text=statement.path,
            hint=f'write: quarantine {source} to "out/{source}_bad" (a folder under the suite\'s), then valid ...',
        )
    return str(base / statement.path), statement.format


def _inside(path: Path, base: Path) -> bool:
    return path.resolve().is_relative_to(base.resolve())
