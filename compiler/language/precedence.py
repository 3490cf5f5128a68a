"""Operator precedence, applied after parsing.

The grammar reads an expression as a flat chain (operand, operator, operand, ..., with IN,
BETWEEN, LIKE and IS as tails): a PEG descending nine precedence levels for every name was
the parser's main cost. This module rebuilds the tree the checker reads, with the classic
precedence, lowest first: OR, AND, NOT, predicates (comparison, IN, BETWEEN, LIKE, IS),
``+ -``, ``* / %``, unary sign. Comparisons do not chain (``a = b = c`` is an error) and NOT
only starts a condition (``a + not b`` is an error), as SQL has it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

# a textX model object: its attributes are the grammar's, known only at run time
TextX = Any

# How deep an expression may nest once its tree is built: every operator, call, cast, selection
# and sign is a level, except AND/OR chains, which nest as balanced trees (500 conjuncts are 9
# levels). Deeper trees are refused when parsed, so no later step (checks, lowering, hashing
# plans, engines, Spark Connect's message limits) can run out of stack.
MAX_EXPRESSION_DEPTH = 128
# the textX classes of an operand that are a level of the expression each
_LEVELS = {
    "FunctionCall",
    "MethodSuffix",
    "CastExpr",
    "IndexSuffix",
    "FieldSuffix",
    "RangeSuffix",
    "FilterSuffix",
    "AllSuffix",
    "StarSuffix",
    "InTail",
    "BetweenTail",
    "LikeTail",
    "IsTail",
}

OR_OPS = {"or", "||"}
AND_OPS = {"and", "&&"}
COMPARE_OPS = {"<=>", "==", "!=", "<>", "<=", ">=", "=", "<", ">"}
ADD_OPS = {"+", "-"}
MUL_OPS = {"*", "/", "%"}
NOT_PREFIXES = {"not", "!"}


class ShapeError(Exception):
    """An expression that parses as a chain but has no valid tree; ``position`` is an offset."""

    code = "SYNTAX_ERROR"

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


class TooDeep(ShapeError):
    """An expression whose tree would nest deeper than ``MAX_EXPRESSION_DEPTH``."""

    code = "EXPRESSION_TOO_DEEP"


class _Node:
    """A tree node with the source span and parent textX locations and error messages need."""

    def __init__(self, parent: TextX, start: int, end: int, depth: int = 0, **attributes: Any) -> None:
        self.parent = parent
        self._tx_position = start
        self._tx_position_end = end
        self.depth = depth  # levels of the tree below and at this node
        self.__dict__.update(attributes)


# The class names are what the checker dispatches on.
class OrExpr(_Node):
    pass


class AndExpr(_Node):
    pass


class NotExpr(_Node):
    pass


class Predicate(_Node):
    pass


class CompareTail(_Node):
    pass


class Additive(_Node):
    pass


class Multiplicative(_Node):
    pass


class Unary(_Node):
    pass


class _Chain:
    """A cursor over a flat chain: operands, and between them operators or predicate tails."""

    def __init__(self, flat: TextX) -> None:
        self.parent = flat.parent
        # (kind, value, node giving the position): operators are strings, held with their step
        self.items: list[tuple[str, TextX, TextX]] = [("operand", flat.first, flat.first)]
        for step in flat.rest:
            if getattr(step, "tail", None) is not None:
                self.items.append(("tail", step.tail, step.tail))
            else:
                self.items.append(("op", step.op.lower(), step))
                self.items.append(("operand", step.operand, step.operand))
        self.index = 0
        # prefixes of each operand not yet consumed (NOT is taken by the NOT level, signs by unary)
        self.prefixes = {id(o): [p.lower() for p in o.prefixes] for kind, o, _ in self.items if kind == "operand"}

    def peek(self) -> tuple[str, TextX, TextX] | None:
        return self.items[self.index] if self.index < len(self.items) else None

    def peek_op(self, ops: set[str]) -> str | None:
        item = self.peek()
        return str(item[1]) if item is not None and item[0] == "op" and item[1] in ops else None

    def take(self) -> TextX:
        item = self.items[self.index]
        self.index += 1
        return item[1]

    def node(self, cls: type[_Node], first: TextX, last: TextX, **attributes: Any) -> _Node:
        return cls(self.parent, first._tx_position, last._tx_position_end, **attributes)


def reshape_expression(flat: TextX) -> _Node:
    """The tree of a flat ``Expression``."""
    chain = _Chain(flat)
    tree = _or(chain)
    if (left := chain.peek()) is not None:
        raise ShapeError("a comparison or test cannot follow another one: add parentheses", _position(left[2]))
    return _bounded(tree)


def reshape_additive(flat: TextX) -> _Node:
    """The tree of a flat arithmetic chain (``Additive``: BETWEEN bounds, LIKE patterns, ...)."""
    chain = _Chain(flat)
    tree = _additive(chain)
    if (left := chain.peek()) is not None:
        raise ShapeError("only arithmetic may stand here", _position(left[2]))
    return _bounded(tree)


def _bounded(tree: _Node) -> _Node:
    if tree.depth > MAX_EXPRESSION_DEPTH:
        raise TooDeep(
            f"the expression nests {tree.depth} levels deep, more than {MAX_EXPRESSION_DEPTH}: "
            "split it, or use fewer chained operators",
            tree._tx_position,
        )
    return tree


def operand_depth(operand: TextX) -> int:
    """Levels inside one textX operand: its signs, calls, casts and selections, and the depth of
    the expressions within it (already reshaped, so they know theirs). Walked without recursion."""
    deepest = 0
    stack: list[tuple[TextX, int]] = [(operand, len(getattr(operand, "prefixes", ()) or ()))]
    while stack:
        node, level = stack.pop()
        if isinstance(node, _Node):
            deepest = max(deepest, level + node.depth)
            continue
        if isinstance(node, list):
            stack.extend((item, level) for item in node)
            continue
        attributes = getattr(type(node), "_tx_attrs", None)
        if attributes is None:
            continue
        level += type(node).__name__ in _LEVELS
        deepest = max(deepest, level)
        stack.extend((getattr(node, name, None), level) for name in attributes)
    return deepest


def _position(item: TextX) -> int:
    return int(getattr(item, "_tx_position", 0))


def _binary(chain: _Chain, cls: type[_Node], ops: set[str], lower: Callable[[_Chain], _Node]) -> _Node:
    operands = [lower(chain)]
    signs = []
    while (op := chain.peek_op(ops)) is not None:
        chain.take()
        signs.append(op)
        operands.append(lower(chain))
    # AND and OR become balanced trees; arithmetic nests one level per operator
    added = math.ceil(math.log2(len(operands))) if ops in (OR_OPS, AND_OPS) else len(signs)
    depth = max(operand.depth for operand in operands) + added
    return chain.node(cls, operands[0], operands[-1], depth=depth, operands=operands, ops=signs)


def _or(chain: _Chain) -> _Node:
    return _binary(chain, OrExpr, OR_OPS, _and)


def _and(chain: _Chain) -> _Node:
    return _binary(chain, AndExpr, AND_OPS, _not)


def _next_operand(chain: _Chain) -> TextX:
    """The operand the cursor stands on (not yet taken)."""
    item = chain.peek()
    if item is None or item[0] != "operand":
        raise ShapeError("an operand is missing", _position(item[2]) if item else 0)
    return item[1]


def _not(chain: _Chain) -> _Node:
    operand = _next_operand(chain)
    pending = chain.prefixes[id(operand)]
    nots = []
    while pending and pending[0] in NOT_PREFIXES:
        nots.append(pending.pop(0))
    predicate = _predicate(chain)
    return chain.node(NotExpr, operand, predicate, depth=predicate.depth + len(nots), nots=nots, operand=predicate)


def _predicate(chain: _Chain) -> _Node:
    left = _additive(chain)
    tail = None
    item = chain.peek()
    if item is not None and item[0] == "op" and item[1] in COMPARE_OPS:
        op = chain.take()
        right = _additive(chain)
        tail = chain.node(CompareTail, right, right, depth=right.depth, op=op, right=right)
    elif item is not None and item[0] == "tail":
        tail = chain.take()
    end = tail if tail is not None else left
    depth = left.depth if tail is None else 1 + max(left.depth, operand_depth(tail))
    return chain.node(Predicate, left, end, depth=depth, left=left, tail=tail)


def _additive(chain: _Chain) -> _Node:
    return _binary(chain, Additive, ADD_OPS, _multiplicative)


def _multiplicative(chain: _Chain) -> _Node:
    return _binary(chain, Multiplicative, MUL_OPS, _unary)


def _unary(chain: _Chain) -> _Node:
    operand = _next_operand(chain)
    chain.take()
    pending = chain.prefixes[id(operand)]
    if any(p in NOT_PREFIXES for p in pending):
        raise ShapeError("NOT can only start a condition: add parentheses, e.g. a = (not b)", _position(operand))
    return chain.node(Unary, operand, operand, depth=operand_depth(operand), signs=list(pending), operand=operand.base)
