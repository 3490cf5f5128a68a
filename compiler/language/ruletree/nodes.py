"""Nodes of Griffin DSL expressions, select queries and accuracy bodies.

Every node knows where it stands (``location``, with the file and the offsets of the text it was
parsed from already applied) and the exact text it was parsed from (``text``), for error messages
and metric names. Names and strings hold their values (quotes removed), time literals their
milliseconds: later stages never read tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InvalidInput, Location


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """A positioned piece of a rule."""

    location: Location
    text: str


def located(code: str, message: str, node: Node | None, hint: str | None = None) -> InvalidInput:
    """An error about ``node``: at its location, quoting its text (no node: the caller locates it)."""
    if node is None:
        return InvalidInput(code, message, hint=hint)
    return InvalidInput(code, message, location=node.location, text=node.text or None, hint=hint)


# -- operators ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Logical(Node):
    """Two or more operands joined by ``and`` or ``or``."""

    op: str  # and | or
    operands: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Not(Node):
    """``not x`` (``count`` NOTs in a row)."""

    count: int
    operand: Expr


@dataclass(frozen=True, slots=True)
class Compare(Node):
    left: Expr
    op: str  # = == != <> < <= > >= <=>
    right: Expr


@dataclass(frozen=True, slots=True)
class InList(Node):
    operand: Expr
    options: tuple[Expr, ...]
    negated: bool


@dataclass(frozen=True, slots=True)
class Between(Node):
    operand: Expr
    low: Expr
    high: Expr
    negated: bool


@dataclass(frozen=True, slots=True)
class Like(Node):
    operand: Expr
    op: str  # like | rlike, as written
    pattern: Expr
    negated: bool


@dataclass(frozen=True, slots=True)
class IsTest(Node):
    """``x is [not] null`` / ``x is [not] nan``."""

    operand: Expr
    what: str  # null | nan
    negated: bool


@dataclass(frozen=True, slots=True)
class Arithmetic(Node):
    """Operands joined left to right by ``+ - * / %`` of one precedence level."""

    operands: tuple[Expr, ...]
    ops: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Signed(Node):
    """A value after one or more signs."""

    signs: tuple[str, ...]
    operand: Expr


@dataclass(frozen=True, slots=True)
class Paren(Node):
    expr: Expr


# -- primaries ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Name(Node):
    """A plain or back-quoted name (a column, a data source or a variable)."""

    name: str


@dataclass(frozen=True, slots=True)
class Head(Node):
    """``$source``, ``${target}``, ``${SLA}``: ``token`` as written, ``name`` inside it."""

    token: str
    name: str


@dataclass(frozen=True, slots=True)
class Star(Node):
    pass


@dataclass(frozen=True, slots=True)
class Cast(Node):
    operand: Expr
    type_name: str


@dataclass(frozen=True, slots=True)
class FunctionCall(Node):
    """``name(args)``; ``raw_name`` as written (back-quotes kept) for messages."""

    raw_name: str
    name: str
    distinct: bool
    args: tuple[Argument, ...]


@dataclass(frozen=True, slots=True)
class StringLit(Node):
    value: str


@dataclass(frozen=True, slots=True)
class NumberLit(Node):
    """A number as written: the resolver decides between integer and double."""

    token: str


@dataclass(frozen=True, slots=True)
class TimeLit(Node):
    """``3d``, ``5h``, ``500ms``: the duration in milliseconds."""

    millis: int | float


@dataclass(frozen=True, slots=True)
class BooleanLit(Node):
    value: bool


@dataclass(frozen=True, slots=True)
class NullLit(Node):
    pass


@dataclass(frozen=True, slots=True)
class NanLit(Node):
    pass


# -- selections: a value and the steps after it --------------------------------------------------
@dataclass(frozen=True, slots=True)
class Selection(Node):
    """A value followed by one or more steps (``a.b``, ``x['k']``, ``s.count()``, ``$source.*``)."""

    base: Expr
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class FieldStep(Node):
    name: str


@dataclass(frozen=True, slots=True)
class MethodStep(Node):
    """``.name(args)``; ``raw_name`` as written."""

    raw_name: str
    name: str
    distinct: bool
    args: tuple[Argument, ...]


@dataclass(frozen=True, slots=True)
class StarStep(Node):
    """``.*``"""


@dataclass(frozen=True, slots=True)
class AllStep(Node):
    """``[*]``"""


@dataclass(frozen=True, slots=True)
class RangeStep(Node):
    """``[(low, high)]``"""

    low: Expr
    high: Expr


@dataclass(frozen=True, slots=True)
class FilterStep(Node):
    """``['field' op value]``"""

    field: str
    op: str
    value: Expr


@dataclass(frozen=True, slots=True)
class IndexStep(Node):
    """``[index]``"""

    index: Expr


Expr = (
    Logical
    | Not
    | Compare
    | InList
    | Between
    | Like
    | IsTest
    | Arithmetic
    | Signed
    | Paren
    | Name
    | Head
    | Star
    | Cast
    | FunctionCall
    | StringLit
    | NumberLit
    | TimeLit
    | BooleanLit
    | NullLit
    | NanLit
    | Selection
)
Argument = Expr  # a Star among them is count(*)
Step = FieldStep | MethodStep | StarStep | AllStep | RangeStep | FilterStep | IndexStep


# -- select lists and queries --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SelectItem(Node):
    expr: Expr
    alias: str | None

    @property
    def label(self) -> str:
        """Its alias, else its text as written: how a validity rule names a condition."""
        return self.alias or self.expr.text


@dataclass(frozen=True, slots=True)
class OrderItem(Node):
    expr: Expr
    descending: bool


@dataclass(frozen=True, slots=True)
class SelectQuery(Node):
    """A profiling query or measure; ``source`` is its FROM, ``limit`` its LIMIT as written."""

    distinct: bool
    items: tuple[SelectItem, ...]
    source: str | None
    where: Expr | None
    groups: tuple[Expr, ...]
    having: Expr | None
    orders: tuple[OrderItem, ...]
    limit: str | None


@dataclass(frozen=True, slots=True)
class SelectList(Node):
    """The selections of a completeness, uniqueness, distinctness or timeliness rule."""

    items: tuple[SelectItem, ...]


# -- accuracy ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class IndexHint(Node):
    """``index: "uid, ts"``: the join keys, in order."""

    columns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConditionRule(Node):
    """``rule [WHEN condition]`` or ``IF (condition) rule``."""

    rule: Expr
    condition: Expr | None
    index: IndexHint | None


@dataclass(frozen=True, slots=True)
class Mapping(Node):
    left: Expr
    op: str  # === !== << >> <<= >>=
    right: Expr


@dataclass(frozen=True, slots=True)
class KeyStatement(Node):
    mapping: Mapping


@dataclass(frozen=True, slots=True)
class InvalidStatement(Node):
    condition: Expr


@dataclass(frozen=True, slots=True)
class AssignStatement(Node):
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class MappingStatement(Node):
    mapping: Mapping


RuleStatement = KeyStatement | InvalidStatement | AssignStatement | MappingStatement


@dataclass(frozen=True, slots=True)
class StatementRule(Node):
    """The older Griffin design's accuracy statements: ``@Key a === b; c === d;``."""

    statements: tuple[RuleStatement, ...]
    index: IndexHint | None


AccuracyBody = ConditionRule | StatementRule
