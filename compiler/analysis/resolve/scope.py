"""What names mean inside one rule: the visible data sources, aliases and variables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...errors import ErrorList, InvalidInput
from ...language.ruletree.nodes import located
from ...plan import Literal, Scalar
from ...plan.data_types import NULL, Schema


@dataclass
class Side:
    """One data source visible in a rule: its schema and the names its columns have in the plan."""

    source: str
    schema: Schema
    rename: Callable[[str], str] = str  # str(name) is the name itself


@dataclass
class Scope:
    """What names mean inside one rule.

    ``sides`` are the visible sources by name; ``roles`` maps ``source``/``target`` to them;
    bare column names resolve against ``default`` sides in order. ``aliases`` are select-list
    names usable in ``having`` and ``order by``.
    """

    sides: dict[str, Side]
    roles: dict[str, str]
    default: list[str]
    aliases: dict[str, Scalar] = field(default_factory=dict)
    outside: set[str] = field(default_factory=set)  # data sources this rule may not read
    variables: dict[str, Scalar] = field(default_factory=dict)  # `SLA = 24h;` read as ${SLA}
    now_ms: int = 0  # the run's time: current_date() and the like are this constant
    unknown: ErrorList | None = None  # the rule's unknown names, kept while it is checked on (None: raised)

    error = staticmethod(located)  # an error at a node of the rule

    def side_of_head(self, name: str) -> Side | None:
        if name in self.sides:
            return self.sides[name]
        lowered = name.lower()
        if lowered in self.roles:
            return self.sides[self.roles[lowered]]
        return None

    def all_column_names(self) -> list[str]:
        names: list[str] = []
        for side_name in self.default:
            names.extend(self.sides[side_name].schema.names)
        return names


def unknown_name(error: InvalidInput, kept: ErrorList | None) -> Scalar:
    """What a column or function the rule names, and that is not there, reads as: NULL, which
    every operator and function takes, so the rule's other names are checked on; ``error`` is
    kept in ``kept`` (the rule's: ``RuleChecker.checked`` raises them together), raised without it."""
    if kept is None:
        raise error
    kept.add(error)
    return Literal(None, NULL)


@dataclass
class Context:
    """Where an expression stands: whether aggregates may appear and what a clause is called."""

    aggregates: bool = False
    clause: str = "expression"
