"""Hand-written parser of Griffin DSL expressions, select queries and accuracy bodies.

It reads what ``grammar/expressions.tx`` and ``accuracy.tx`` read and builds the nodes
``convert.py`` builds from textX's models (with ``precedence.py``'s trees), positions included,
about ten times faster. It follows the grammar's ordered choices exactly where it accepts a
text; where the grammar would backtrack, or the text is wrong, it raises ``Unhandled`` and textX
reads the text instead, so errors stay textX's by construction. Every expression's depth is
counted as ``precedence`` counts it; a deeper one goes to textX too (which refuses it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ..precedence import ADD_OPS, AND_OPS, COMPARE_OPS, MAX_EXPRESSION_DEPTH, MUL_OPS, NOT_PREFIXES, OR_OPS
from ..textx_parser import string_value, unquote_name, unquote_string
from ..time_literals import time_literal_ms
from ..value_lists import VALUE
from . import nodes as n
from .fast_scanner import DIGITS, FLAGS, NUMBER, QUOTED_NAME, STRING, TIME, Cursor, Unhandled

# The grammar's patterns (expressions.tx), as textX compiles them.
STEP_START = re.compile(r"(?ai:or|and|not|in|between|rlike|like|is)\b|\|\||&&|[<>=!+\-*\/%]", FLAGS)
BINARY_OP = re.compile(r"(?ai:or|and)\b|\|\||&&|<=>|==|!=|<>|<=|>=|=|<|>|\+|-|\*|\/|%", FLAGS)
COMPARE_OP = re.compile(r"<=>|==|!=|<>|<=|>=|=|<|>", FLAGS)
ARITH_OP = re.compile(r"\+|-|\*|\/|%", FLAGS)
HEAD = re.compile(r"\$(\{\s*[^\W\d]\w*\s*\}|[^\W\d]\w*)", FLAGS)
TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\s*\(\s*\d+\s*,\s*\d+\s*\))?", FLAGS)
VALUE_LIST = re.compile(
    r"""(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?![\w.]))"""
    r"""(?:\s*,\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?![\w.])))*"""
    r"""(?=\s*\))""",
    FLAGS,
)
# words that are never a PlainName
KEYWORDS = frozenset(
    "select distinct from where group by having order asc desc limit as and or not in between like rlike "
    "is null nan true false".split()
)
_DIGIT_START = frozenset("0123456789")

# A parsed piece: its node, where its text starts and ends, and its depth as precedence.py counts.
Piece = tuple[n.Expr, int, int, int]


class _Operand:
    """An operand of a flat chain: its prefixes (lower case), the value after them, its span."""

    __slots__ = ("depth", "end", "node", "nots", "prefixes", "start")

    def __init__(self, start: int, end: int, prefixes: list[str], node: n.Expr, depth: int) -> None:
        self.start, self.end, self.prefixes, self.node, self.depth = start, end, prefixes, node, depth
        self.nots = 0  # leading NOTs the NOT level took


class _Tail:
    """A predicate tail (IN, BETWEEN, LIKE, IS) waiting for the value it tests."""

    __slots__ = ("depth", "end", "kind", "negated", "op", "parts")

    def __init__(self, kind: str, parts: tuple[n.Expr, ...], negated: bool, op: str, end: int, depth: int) -> None:
        self.kind, self.parts, self.negated, self.op, self.end, self.depth = kind, parts, negated, op, end, depth


Item = _Operand | _Tail | str  # a chain: operands, and between them operators (str) or tails


class ExpressionParser(Cursor):
    """Expressions and the rule bodies made of them, read from one text."""

    # -- names ------------------------------------------------------------------------------------
    def name(self) -> str:
        """A PlainName or QuotedName, as written."""
        if self.char() == "`":
            return self.expect(QUOTED_NAME)
        word = self.word()
        if not word or word in KEYWORDS:
            raise Unhandled("a name")
        return self.take_word()

    # -- expressions ------------------------------------------------------------------------------
    def expression(self) -> Piece:
        """An ``Expression``: a flat chain of operands and steps, shaped by precedence."""
        items: list[Item] = [self.operand()]
        while STEP_START.match(self.text, self.pos):
            op = self.take(BINARY_OP)
            if op is not None:
                items.append(op.lower())
                items.append(self.operand())
            else:
                items.append(self.tail())
        return _Shape(self, items).expression()

    def additive(self) -> Piece:
        """An ``Additive``: arithmetic only."""
        items: list[Item] = [self.operand()]
        while (op := self.take(ARITH_OP)) is not None:
            items.append(op)
            items.append(self.operand())
        return _Shape(self, items).additive()

    def operand(self) -> _Operand:
        start = self.pos
        prefixes = []
        while True:
            char = self.char()
            if char in ("-", "+"):
                prefixes.append(char)
                self.advance(self.pos + 1)
            elif char == "!" and not self.starts("!="):
                prefixes.append("!")
                self.advance(self.pos + 1)
            elif self.keyword("not"):
                prefixes.append("not")
            else:
                break
        node, end, depth = self.postfix()
        return _Operand(start, end, prefixes, node, len(prefixes) + depth)

    def postfix(self) -> tuple[n.Expr, int, int]:
        start = self.pos
        base, end, depth = self.primary()
        steps: list[n.Step] = []
        while self.char() in (".", "["):
            step, step_depth = self.suffix()
            steps.append(step)
            depth = max(depth, step_depth)
            end = self.last_end
        if not steps:
            return base, end, depth
        return n.Selection(base, tuple(steps), **self.span(start, end)), end, depth

    def primary(self) -> tuple[n.Expr, int, int]:
        start, char = self.pos, self.char()
        if char == "`":
            raw = self.expect(QUOTED_NAME)
            if self.char() == "(":
                return self.call(raw, start)
            return n.Name(unquote_name(raw), **self.span(start, self.last_end)), self.last_end, 0
        word = self.word()
        if word:
            if word in KEYWORDS:
                return self.keyword_literal(word, start), self.last_end, 0
            raw = self.take_word()
            if self.char() == "(":
                return self.cast(start) if word == "cast" else self.call(raw, start)
            return n.Name(raw, **self.span(start, self.last_end)), self.last_end, 0
        if char in _DIGIT_START or char == ".":
            time = self.take(TIME)
            if time is not None:
                return n.TimeLit(time_literal_ms(time), **self.span(start, self.last_end)), self.last_end, 0
            return n.NumberLit(self.expect(NUMBER), **self.span(start, self.last_end)), self.last_end, 0
        if char in ("'", '"'):
            value = string_value(self.expect(STRING))
            return n.StringLit(value, **self.span(start, self.last_end)), self.last_end, 0
        if char == "(":
            self.advance(start + 1)
            inner, _, _, depth = self.expression()
            self.expect_punct(")")
            return n.Paren(inner, **self.span(start, self.last_end)), self.last_end, depth
        if char == "*":
            self.advance(start + 1)
            return n.Star(**self.span(start, self.last_end)), self.last_end, 0
        if char == "$":
            token = self.expect(HEAD)
            return n.Head(token, token.strip("${} \t"), **self.span(start, self.last_end)), self.last_end, 0
        raise Unhandled("a value")

    def keyword_literal(self, word: str, start: int) -> n.Expr:
        """``true``, ``false``, ``null``, ``nan``: the keywords that are values."""
        if word not in ("true", "false", "null", "nan"):
            raise Unhandled(word)
        self.take_word()
        at = self.span(start, self.last_end)
        if word == "null":
            return n.NullLit(**at)
        if word == "nan":
            return n.NanLit(**at)
        return n.BooleanLit(word == "true", **at)

    def cast(self, start: int) -> tuple[n.Expr, int, int]:
        self.advance(self.pos + 1)
        operand, _, _, depth = self.expression()
        self.expect_keyword("as")
        type_name = self.expect(TYPE_NAME)
        self.expect_punct(")")
        return n.Cast(operand, type_name, **self.span(start, self.last_end)), self.last_end, depth + 1

    def arguments(self) -> tuple[bool, tuple[n.Expr, ...], int]:
        """``( [distinct] args )`` of a call or method: distinct, the arguments, their depth."""
        self.expect_punct("(")
        distinct = self.keyword("distinct")
        args, depth = self.listed(self.argument) if self.char() != ")" else ((), 0)
        self.expect_punct(")")
        return distinct, args, depth

    def argument(self) -> Piece:
        """An ``Argument``: ``*`` alone, or an expression."""
        start = self.pos
        if self.char() == "*":
            self.advance(start + 1)
            return n.Star(**self.span(start, self.last_end)), start, self.last_end, 0
        return self.expression()

    def call(self, raw: str, start: int) -> tuple[n.Expr, int, int]:
        distinct, args, depth = self.arguments()
        at = self.span(start, self.last_end)
        return n.FunctionCall(raw, unquote_name(raw), distinct, args, **at), self.last_end, depth + 1

    def suffix(self) -> tuple[n.Step, int]:
        """One step after a value (``.name``, ``.f(...)``, ``.*``, ``[...]``) and its depth."""
        start = self.pos
        self.advance(start + 1)
        if self.text[start] == ".":
            if self.punct("*"):
                return n.StarStep(**self.span(start, self.last_end)), 1
            raw = self.name()
            if self.char() == "(":
                distinct, args, depth = self.arguments()
                at = self.span(start, self.last_end)
                return n.MethodStep(raw, unquote_name(raw), distinct, args, **at), depth + 1
            return n.FieldStep(unquote_name(raw), **self.span(start, self.last_end)), 1
        step: n.Step
        if self.punct("*"):
            self.expect_punct("]")
            return n.AllStep(**self.span(start, self.last_end)), 1
        if self.punct("("):
            low, _, _, low_depth = self.expression()
            self.expect_punct(",")
            high, _, _, high_depth = self.expression()
            self.expect_punct(")")
            self.expect_punct("]")
            return n.RangeStep(low, high, **self.span(start, self.last_end)), 1 + max(low_depth, high_depth)
        if self.char() in ("'", '"'):
            mark = self.mark()
            field = self.expect(STRING)
            op = self.take(COMPARE_OP)
            if op is not None:
                value, _, _, depth = self.additive()
                self.expect_punct("]")
                step = n.FilterStep(unquote_string(field), op, value, **self.span(start, self.last_end))
                return step, 1 + depth
            self.reset(mark)  # a string alone is an index: IndexSuffix
        index, _, _, depth = self.expression()
        self.expect_punct("]")
        return n.IndexStep(index, **self.span(start, self.last_end)), 1 + depth

    def tail(self) -> _Tail:
        """IN, BETWEEN, LIKE or IS after a value."""
        if self.keyword("is"):
            negated = self.keyword("not")
            what = self.word()
            if what not in ("null", "nan"):
                raise Unhandled("null or nan")
            self.take_word()
            return _Tail("is", (), negated, what, self.last_end, 1)
        negated = self.keyword("not")
        word = self.word()
        if word == "in":
            return self.in_tail(negated)
        if word == "between":
            self.take_word()
            low, high, depth = self.between_bounds()
            return _Tail("between", (low, high), negated, "", self.last_end, depth)
        if word in ("like", "rlike"):
            op = self.take_word()
            pattern, _, _, depth = self.additive()
            return _Tail("like", (pattern,), negated, op, self.last_end, 1 + depth)
        raise Unhandled("a predicate")

    def between_bounds(self) -> tuple[n.Expr, n.Expr, int]:
        """``(low, high)`` or ``low AND high``, and the depth they give the BETWEEN."""
        mark = self.mark()
        if self.punct("("):
            low, _, _, low_depth = self.additive()
            if self.punct(","):
                high, _, _, high_depth = self.additive()
                self.expect_punct(")")
                return low, high, 1 + max(low_depth, high_depth)
            self.reset(mark)  # `(low) and high`: the grammar's second form reads it again
        low, _, _, low_depth = self.additive()
        self.expect_keyword("and")
        high, _, _, high_depth = self.additive()
        return low, high, 1 + max(low_depth, high_depth)

    def in_tail(self, negated: bool) -> _Tail:
        self.take_word()
        self.expect_punct("(")
        values = VALUE_LIST.match(self.text, self.pos)
        if values is None:
            options, depth = self.listed(self.expression)
        else:  # strings and numbers alone, as value_lists.py reads them
            base, depth = self.pos, 0
            options = tuple(self.list_value(match, base) for match in VALUE.finditer(values.group()))
            self.advance(values.end())
        self.expect_punct(")")
        return _Tail("in", options, negated, "", self.last_end, 1 + depth)

    def list_value(self, match: re.Match[str], base: int) -> n.Expr:
        token = match.group()
        at = self.span(base + match.start(), base + match.end())
        return n.StringLit(string_value(token), **at) if token[0] in "'\"" else n.NumberLit(token, **at)

    def listed(self, parse: Callable[[], Piece]) -> tuple[tuple[n.Expr, ...], int]:
        """One or more of what ``parse`` reads, separated by commas, and the deepest one's depth."""
        pieces = [parse()]
        while self.punct(","):
            pieces.append(parse())
        return tuple(piece[0] for piece in pieces), max(piece[3] for piece in pieces)

    # -- select lists and queries -----------------------------------------------------------------
    def select_item(self) -> n.SelectItem:
        start = self.pos
        expr = self.argument()[0]
        alias = unquote_name(self.name()) if self.keyword("as") else None
        return n.SelectItem(expr, alias, **self.span(start, self.last_end))

    def select_items(self) -> tuple[n.SelectItem, ...]:
        items = [self.select_item()]
        while self.punct(","):
            items.append(self.select_item())
        return tuple(items)

    def query(self) -> n.SelectQuery:
        """A ``SelectQuery``: ``[select] [distinct] items [from] [where] [group by] [order by] [limit]``."""
        start = self.pos
        self.keyword("select")
        distinct = self.keyword("distinct")
        items = self.select_items()
        source = unquote_name(self.name()) if self.keyword("from") else None
        where = self.expression()[0] if self.keyword("where") else None
        groups: tuple[n.Expr, ...] = ()
        having = None
        if self.keyword("group"):
            self.expect_keyword("by")
            groups = self.listed(self.expression)[0]
            having = self.expression()[0] if self.keyword("having") else None
        orders: list[n.OrderItem] = []
        if self.keyword("order"):
            self.expect_keyword("by")
            while True:
                order_start = self.pos
                expr = self.expression()[0]
                descending = self.keyword("desc")
                if not descending:
                    self.keyword("asc")
                orders.append(n.OrderItem(expr, descending, **self.span(order_start, self.last_end)))
                if not self.punct(","):
                    break
        limit = self.expect(DIGITS) if self.keyword("limit") else None
        at = self.span(start, self.last_end)
        return n.SelectQuery(distinct, items, source, where, groups, having, tuple(orders), limit, **at)

    # -- accuracy ---------------------------------------------------------------------------------
    def accuracy(self) -> n.AccuracyBody:
        """``rule [when condition] [index: "keys"]`` or ``if (condition) rule [index ...]``.

        The older statement form (``@Key a === b;``) goes to textX: it holds a ``;``, which no
        condition can, so a text the statement form reads never parses here."""
        start, mark = self.pos, self.mark()
        if self.char() == "@":
            raise Unhandled("accuracy statements")
        condition: n.Expr | None = None
        if self.word() == "if" and self.followed_by_paren():
            self.take_word()
            self.expect_punct("(")
            condition = self.expression()[0]
            if self.punct(")"):
                rule = self.expression()[0]
                return n.ConditionRule(rule, condition, self.index_hint(), **self.span(start, self.last_end))
            self.reset(mark)  # `if(a, b, c)`: not IF (condition), the grammar reads a call
            condition = None
        rule = self.expression()[0]
        if self.keyword("when"):
            condition = self.expression()[0]
        index = self.index_hint()
        return n.ConditionRule(rule, condition, index, **self.span(start, self.last_end))

    def followed_by_paren(self) -> bool:
        """Whether the word here is followed by ``(``."""
        mark = self.mark()
        self.take_word()
        paren = self.char() == "("
        self.reset(mark)
        return paren

    def index_hint(self) -> n.IndexHint | None:
        start = self.pos
        if not self.keyword("index"):
            return None
        self.punct(":")
        columns = unquote_string(self.expect(STRING))
        return n.IndexHint(tuple(part.strip() for part in columns.split(",")), **self.span(start, self.last_end))


class _Shape:
    """A flat chain made a tree, with precedence.py's levels, spans and depths.

    Lowest first: OR, AND, NOT, predicates, ``+ -``, ``* / %``, signs. A chain that has no tree
    (``a = b = c``, ``a + not b``) is left to textX, which says why."""

    def __init__(self, parser: ExpressionParser, items: list[Item]) -> None:
        self.parser = parser
        self.items = items
        self.index = 0

    def expression(self) -> Piece:
        return self._bounded(self._logical(OR_OPS, "or"))

    def additive(self) -> Piece:
        return self._bounded(self._arithmetic(ADD_OPS))

    def _bounded(self, piece: Piece) -> Piece:
        if self.index != len(self.items) or piece[3] > MAX_EXPRESSION_DEPTH:
            raise Unhandled("no tree, or too deep")
        return piece

    def _op(self, ops: set[str]) -> str | None:
        item = self.items[self.index] if self.index < len(self.items) else None
        return item if isinstance(item, str) and item in ops else None

    def _operand(self) -> _Operand:
        item = self.items[self.index] if self.index < len(self.items) else None
        if not isinstance(item, _Operand):
            raise Unhandled("an operand is missing")
        return item

    def _logical(self, ops: set[str], op: str) -> Piece:
        lower = self._not if op == "and" else (lambda: self._logical(AND_OPS, "and"))
        pieces = [lower()]
        while self._op(ops) is not None:
            self.index += 1
            pieces.append(lower())
        if len(pieces) == 1:
            return pieces[0]
        start, end = pieces[0][1], pieces[-1][2]
        depth = max(piece[3] for piece in pieces) + math.ceil(math.log2(len(pieces)))
        node = n.Logical(op, tuple(piece[0] for piece in pieces), **self.parser.span(start, end))
        return node, start, end, depth

    def _not(self) -> Piece:
        operand = self._operand()
        while operand.nots < len(operand.prefixes) and operand.prefixes[operand.nots] in NOT_PREFIXES:
            operand.nots += 1
        node, start, end, depth = self._predicate()
        if not operand.nots:
            return node, start, end, depth
        return n.Not(operand.nots, node, **self.parser.span(start, end)), start, end, depth + operand.nots

    def _predicate(self) -> Piece:
        left, start, end, depth = self._arithmetic(ADD_OPS)
        op = self._op(COMPARE_OPS)
        if op is not None:
            self.index += 1
            right, _, end, right_depth = self._arithmetic(ADD_OPS)
            return n.Compare(left, op, right, **self.parser.span(start, end)), start, end, 1 + max(depth, right_depth)
        tail = self.items[self.index] if self.index < len(self.items) else None
        if not isinstance(tail, _Tail):
            return left, start, end, depth
        self.index += 1
        at = self.parser.span(start, tail.end)
        node: n.Expr
        if tail.kind == "in":
            node = n.InList(left, tail.parts, tail.negated, **at)
        elif tail.kind == "between":
            node = n.Between(left, tail.parts[0], tail.parts[1], tail.negated, **at)
        elif tail.kind == "like":
            node = n.Like(left, tail.op, tail.parts[0], tail.negated, **at)
        else:
            node = n.IsTest(left, tail.op, tail.negated, **at)
        return node, start, tail.end, 1 + max(depth, tail.depth)

    def _arithmetic(self, ops: set[str]) -> Piece:
        lower = self._unary if ops is MUL_OPS else (lambda: self._arithmetic(MUL_OPS))
        pieces = [lower()]
        signs = []
        while (op := self._op(ops)) is not None:
            self.index += 1
            signs.append(op)
            pieces.append(lower())
        if len(pieces) == 1:
            return pieces[0]
        start, end = pieces[0][1], pieces[-1][2]
        depth = max(piece[3] for piece in pieces) + len(signs)
        node = n.Arithmetic(tuple(piece[0] for piece in pieces), tuple(signs), **self.parser.span(start, end))
        return node, start, end, depth

    def _unary(self) -> Piece:
        operand = self._operand()
        self.index += 1
        signs = operand.prefixes[operand.nots :]
        if not signs:
            return operand.node, operand.start, operand.end, operand.depth
        if any(sign in NOT_PREFIXES for sign in signs):
            raise Unhandled("NOT inside arithmetic")
        node = n.Signed(tuple(signs), operand.node, **self.parser.span(operand.start, operand.end))
        return node, operand.start, operand.end, operand.depth
