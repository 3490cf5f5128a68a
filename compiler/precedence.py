"""Operator precedence, applied after parsing.

The grammar reads an expression as a flat chain (operand, operator, operand, ..., with IN,
BETWEEN, LIKE and IS as tails): a PEG descending nine precedence levels for every name was
the parser's main cost. This module rebuilds the tree the checker reads, with the classic
precedence, lowest first: OR, AND, NOT, predicates (comparison, IN, BETWEEN, LIKE, IS),
``+ -``, ``* / %``, unary sign. Comparisons do not chain (``a = b = c`` is an error) and NOT
only starts a condition (``a + not b`` is an error), as SQL has it.
"""

from __future__ import annotations

OR_OPS = {"or", "||"}
AND_OPS = {"and", "&&"}
COMPARE_OPS = {"<=>", "==", "!=", "<>", "<=", ">=", "=", "<", ">"}
ADD_OPS = {"+", "-"}
MUL_OPS = {"*", "/", "%"}
NOT_PREFIXES = {"not", "!"}


class ShapeError(Exception):
    """An expression that parses as a chain but has no valid tree; ``position`` is an offset."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


class _Node:
    """A tree node with the source span and parent textX locations and error messages need."""

    def __init__(self, parent, start: int, end: int, **attributes) -> None:
        self.parent = parent
        self._tx_position = start
        self._tx_position_end = end
        self.__dict__.update(attributes)


# The class names are what the checker dispatches on.
class OrExpr(_Node): pass  # noqa: E701
class AndExpr(_Node): pass  # noqa: E701
class NotExpr(_Node): pass  # noqa: E701
class Predicate(_Node): pass  # noqa: E701
class CompareTail(_Node): pass  # noqa: E701
class Additive(_Node): pass  # noqa: E701
class Multiplicative(_Node): pass  # noqa: E701
class Unary(_Node): pass  # noqa: E701


class _Chain:
    """A cursor over a flat chain: operands, and between them operators or predicate tails."""

    def __init__(self, flat) -> None:
        self.parent = flat.parent
        # (kind, value, node giving the position): operators are strings, held with their step
        self.items: list[tuple[str, object, object]] = [("operand", flat.first, flat.first)]
        for step in flat.rest:
            if getattr(step, "tail", None) is not None:
                self.items.append(("tail", step.tail, step.tail))
            else:
                self.items.append(("op", step.op.lower(), step))
                self.items.append(("operand", step.operand, step.operand))
        self.index = 0
        # prefixes of each operand not yet consumed (NOT is taken by the NOT level, signs by unary)
        self.prefixes = {id(o): [p.lower() for p in o.prefixes] for kind, o, _ in self.items if kind == "operand"}

    def peek(self) -> tuple[str, object, object] | None:
        return self.items[self.index] if self.index < len(self.items) else None

    def peek_op(self, ops: set[str]) -> str | None:
        item = self.peek()
        return item[1] if item is not None and item[0] == "op" and item[1] in ops else None

    def take(self):
        item = self.items[self.index]
        self.index += 1
        return item[1]

    def node(self, cls, first, last, **attributes):
        return cls(self.parent, first._tx_position, last._tx_position_end, **attributes)


def reshape_expression(flat):
    """The tree of a flat ``Expression``."""
    chain = _Chain(flat)
    tree = _or(chain)
    if chain.peek() is not None:
        raise ShapeError("a comparison or test cannot follow another one: add parentheses",
                         _position(chain.peek()[2]))
    return tree


def reshape_additive(flat):
    """The tree of a flat arithmetic chain (``Additive``: BETWEEN bounds, LIKE patterns, ...)."""
    chain = _Chain(flat)
    tree = _additive(chain)
    if chain.peek() is not None:
        raise ShapeError("only arithmetic may stand here", _position(chain.peek()[2]))
    return tree


def _position(item) -> int:
    return getattr(item, "_tx_position", 0)


def _binary(chain: _Chain, cls, ops: set[str], lower):
    operands = [lower(chain)]
    signs = []
    while (op := chain.peek_op(ops)) is not None:
        chain.take()
        signs.append(op)
        operands.append(lower(chain))
    return chain.node(cls, operands[0], operands[-1], operands=operands, ops=signs)


def _or(chain: _Chain):
    return _binary(chain, OrExpr, OR_OPS, _and)


def _and(chain: _Chain):
    return _binary(chain, AndExpr, AND_OPS, _not)


def _next_operand(chain: _Chain):
    """The operand the cursor stands on (not yet taken)."""
    item = chain.peek()
    if item is None or item[0] != "operand":
        raise ShapeError("an operand is missing", _position(item[2]) if item else 0)
    return item[1]


def _not(chain: _Chain):
    operand = _next_operand(chain)
    pending = chain.prefixes[id(operand)]
    nots = []
    while pending and pending[0] in NOT_PREFIXES:
        nots.append(pending.pop(0))
    predicate = _predicate(chain)
    return chain.node(NotExpr, operand, predicate, nots=nots, operand=predicate)


def _predicate(chain: _Chain):
    left = _additive(chain)
    tail = None
    item = chain.peek()
    if item is not None and item[0] == "op" and item[1] in COMPARE_OPS:
        op = chain.take()
        right = _additive(chain)
        tail = chain.node(CompareTail, right, right, op=op, right=right)
    elif item is not None and item[0] == "tail":
        tail = chain.take()
    end = tail if tail is not None else left
    return chain.node(Predicate, left, end, left=left, tail=tail)


def _additive(chain: _Chain):
    return _binary(chain, Additive, ADD_OPS, _multiplicative)


def _multiplicative(chain: _Chain):
    return _binary(chain, Multiplicative, MUL_OPS, _unary)


def _unary(chain: _Chain):
    operand = _next_operand(chain)
    chain.take()
    pending = chain.prefixes[id(operand)]
    if any(p in NOT_PREFIXES for p in pending):
        raise ShapeError("NOT can only start a condition: add parentheses, e.g. a = (not b)", _position(operand))
    return chain.node(Unary, operand, operand, signs=list(pending), operand=operand.base)
