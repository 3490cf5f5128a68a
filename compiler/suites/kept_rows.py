"""Rows a stream keeps where the engine runs, and the rules that read them again, as Griffin's
streaming mode has them: an accuracy rule with ``retry`` matches its earlier misses again, one
with ``lookback`` matches against a streaming target's earlier rows, ``uniqueness ... with
window`` counts a value over the batch and the earlier rows, ``distinctness ... with window``
(Griffin's ``dup`` and ``accu_dup``) against the earlier rows only.

The stream declares what it kept (``KeptRows``: whose rows, which files) and says nothing of how
a rule reads them: that is ``KEPT_READS``, per rule kind, and kept_reads.py applies it, each
rule reading the rows inside its own window back from the batch's time. The kept files are parquet written from the same relation as the batch's rows, so
their columns stand in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from ..rule_kinds import RuleKind

Side = Literal["source", "target"]


class KeptRole(str, Enum):
    """What kept rows are: a rule's misses, or a stream's (or a view of one) earlier batches."""

    MISSES = "misses"
    EARLIER = "earlier"


@dataclass(frozen=True)
class KeptRows:
    """Rows a stream kept for later batches, in ``files``: ``of`` names the rule (its misses) or
    the stream (its earlier rows)."""

    of: str
    role: KeptRole
    files: tuple[str, ...]


@dataclass(frozen=True)
class KeptRead:
    """How a rule kind reads kept rows when its ``detail`` (a duration) is set: the rows of its
    ``keeps`` side (a stream) are kept as ``role``; the rule reads, as its ``into`` side, those rows
    since the window's start, after the batch's own rows when ``batch_too``. ``renamed``: the rule
    reads them under the side's name (its columns keep it), else they become its target."""

    detail: str
    role: KeptRole
    keeps: Side
    into: Side
    batch_too: bool = True
    renamed: bool = False

    def __post_init__(self) -> None:
        if not self.renamed and self.into != "target":
            raise ValueError("kept rows a rule does not read under a side's name are read as its target")


KEPT_READS: dict[RuleKind, tuple[KeptRead, ...]] = {
    RuleKind.ACCURACY: (
        KeptRead("retry", KeptRole.MISSES, keeps="source", into="source", renamed=True),
        KeptRead("lookback", KeptRole.EARLIER, keeps="target", into="target", renamed=True),
    ),
    RuleKind.UNIQUENESS: (KeptRead("window", KeptRole.EARLIER, keeps="source", into="target"),),
    RuleKind.DISTINCTNESS: (KeptRead("window", KeptRole.EARLIER, keeps="source", into="target", batch_too=False),),
}


@dataclass(frozen=True)
class KeptView:
    """A view over kept rows (``ViewSpec.kept``): the rows of the source ``kept`` whose ``__tmst``
    is at least ``since``, after the rows of ``batch`` when it is set."""

    kept: str
    since: int
    batch: str | None = None
