"""Hand-written parser of native suites (``grammar/suite.tx``) and their check language.

Builds the statements ``convert_suite.py`` builds from textX's models; like
``fast_expressions``, it raises ``Unhandled`` for whatever it does not follow exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ...rule_kinds import dsl_keywords, spec_of
from ..number_literals import number_from_text
from ..textx_parser import unquote_label, unquote_name, unquote_string
from ..time_literals import time_literal_ms
from . import check_nodes as c
from . import nodes as n
from . import statements as s
from .fast_expressions import KEYWORDS, TYPE_NAME, ExpressionParser
from .fast_scanner import DIGITS, FLAGS, NUMBER, SKIP, STRING, TIME, Unhandled

SOURCE_FORMAT = re.compile(
    r"(?ai:csv|tsv|parquet|json|avro|orc|table|postgres|mysql|sqlite|kafka|folder|delta|iceberg)\b", FLAGS
)
OPTION_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*", FLAGS)
OUTPUT_FORMATS = ("delta", "iceberg", "postgres")  # the tables an output statement may name (suite.tx)
LABEL = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_]*""", FLAGS)
CHECK_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", FLAGS)
# a name and a dot: a source's column (orders.amount), read by drift(...)
COLUMN_START = re.compile(r"(?:[^\W\d]\w*|`(?:[^`]|``)*`)\s*\.", FLAGS)
CHECK_KEYWORD = re.compile(r"(?ai:and|or|not|true|false|null)\b", FLAGS)
CHECK_COMPARE_OP = re.compile(r"==|!=|<=|>=|<|>", FLAGS)
RULE_KEYWORDS = dsl_keywords()
_LITERAL_WORDS = {"true": True, "false": False, "null": None, "nan": math.nan}


class SuiteParser(ExpressionParser):
    """The statements of one native suite."""

    def suite(self) -> s.SuiteTree | None:
        name = unquote_name(self.name()) if self.keyword("suite") else None
        statements = []
        while not self.at_end():
            statements.append(self.statement())
        if name is None and not statements:
            return None  # as textX: nothing declared
        return s.SuiteTree(name, tuple(statements))

    def statement(self) -> s.Statement:
        start, word = self.pos, self.word()
        if word == "source":
            return self.source(start)
        if word in RULE_KEYWORDS:
            return self.rule(start)
        if word == "measure":
            return self.measure(start)
        if word in ("check", "warn"):
            warn = self.keyword("warn")
            self.expect_keyword("check")
            name = unquote_label(self.expect(LABEL))
            segment = self.segment()
            self.expect_punct(":")
            expr = self.check()
            return s.CheckDecl(name, warn, expr, segment, **self.span(start, self.last_end))
        if word == "pass":
            self.take_word()
            self.expect_keyword("when")
            policy = self.policy()
            return s.PassDecl(policy, **self.span(start, self.last_end))
        if word == "stream":
            self.take_word()
            self.expect_keyword("every")
            interval = time_literal_ms(self.expect(TIME))
            return s.StreamDecl(int(interval), **self.span(start, self.last_end))
        if word == "schema":
            return self.schema(start)
        if word == "griffin":
            return self.griffin_measure(start)
        if word == "notify":
            self.take_word()
            if self.char() not in ("'", '"'):
                raise Unhandled("a URL")
            url = unquote_string(self.expect(STRING))
            tones = self.keyword_list("on", lambda: unquote_name(self.name()))
            checks = () if self.segments_next() else self.keyword_list("for", lambda: unquote_label(self.expect(LABEL)))
            segments: tuple[object, ...] = ()
            if self.keyword("for"):
                self.expect_keyword("segments")
                segments = (self.segment_value(),)
                while self.punct(","):
                    segments += (self.segment_value(),)
            details = self.details()
            return s.NotifyDecl(url, tones, checks, details, segments, **self.span(start, self.last_end))
        if word in ("quarantine", "valid"):
            self.take_word()
            source = unquote_name(self.name())
            self.expect_keyword("to")
            form = next((f for f in OUTPUT_FORMATS if self.keyword(f)), None)
            if form:
                self.expect_punct("(")
            if self.char() not in ("'", '"'):
                raise Unhandled("a path")
            path = unquote_string(self.expect(STRING))
            options: list[tuple[str, object]] = []
            if form:
                while self.punct(","):
                    key = self.expect(OPTION_KEY)
                    self.expect_punct("=")
                    options.append((key, self.option_value()))
                self.expect_punct(")")
            return s.OutputDecl(
                word, source, path, form or "parquet", tuple(options), **self.span(start, self.last_end)
            )
        raise Unhandled("a statement")

    def segments_next(self) -> bool:
        """Whether ``for segments`` comes next (a notify's segments, not its checks)."""
        mark = self.mark()
        found = self.keyword("for") and self.keyword("segments")
        self.reset(mark)
        return found

    def segment_value(self) -> object:
        """A notify's segment: a string, a number or null."""
        char = self.char()
        if char in ("'", '"'):
            return unquote_string(self.expect(STRING))
        if char.isdigit() or char == ".":
            return number_from_text(self.expect(NUMBER))
        if self.keyword("null"):
            return None
        raise Unhandled("a segment value")

    def keyword_list(self, keyword: str, item: Callable[[], str]) -> tuple[str, ...]:
        """``keyword a, b, ...``: its items, or none when ``keyword`` does not come next."""
        if not self.keyword(keyword):
            return ()
        items = [item()]
        while self.punct(","):
            items.append(item())
        return tuple(items)

    def schema(self, start: int) -> s.SchemaDecl:
        self.take_word()
        source = unquote_name(self.name())
        self.expect_punct(":")
        mode = self.word()
        if mode not in ("required", "exact"):
            raise Unhandled("required or exact")
        self.take_word()
        self.expect_punct("(")
        columns = []
        while True:
            column_start = self.pos
            name = unquote_name(self.name())
            type_name = self.take(TYPE_NAME) if self.char() not in (",", ")") else None
            columns.append(s.SchemaColumn(name, type_name, **self.span(column_start, self.last_end)))
            if not self.punct(","):
                break
        self.expect_punct(")")
        return s.SchemaDecl(source, mode, tuple(columns), **self.span(start, self.last_end))

    def source(self, start: int) -> s.SourceDecl:
        self.take_word()
        name = unquote_name(self.name())
        self.expect_punct("=")
        source_format = self.expect(SOURCE_FORMAT).lower()
        self.expect_punct("(")
        paths: list[str] = []
        options: list[tuple[str, object]] = []
        while True:
            if self.char() in ("'", '"'):
                paths.append(unquote_string(self.expect(STRING)))
            else:
                key = self.expect(OPTION_KEY)
                self.expect_punct("=")
                options.append((key, self.option_value()))
            if not self.punct(","):
                break
        self.expect_punct(")")
        return s.SourceDecl(name, source_format, tuple(paths), tuple(options), **self.span(start, self.last_end))

    def option_value(self) -> object:
        """An ``OptionValue``: a string, a list of strings (a tuple), a number, boolean or null."""
        char = self.char()
        if char == "[":
            self.expect_punct("[")
            items = [unquote_string(self.expect(STRING))]
            while self.punct(","):
                items.append(unquote_string(self.expect(STRING)))
            self.expect_punct("]")
            return tuple(items)
        if char in ("'", '"'):
            return unquote_string(self.expect(STRING))
        if char.isdigit() or char == ".":
            return number_from_text(self.expect(NUMBER))
        word = self.word()
        if word in ("true", "false", "null"):
            self.take_word()
            return _LITERAL_WORDS[word]
        raise Unhandled("an option value")

    def rule(self, start: int) -> s.RuleDecl:
        kind = self.take_word().lower()
        spec = spec_of(kind)
        grammar, two_sources = spec.grammar, spec.target == "required"
        name = unquote_name(self.name())
        source = target = None
        if grammar == "profiling":  # the query's FROM may name the source
            source = unquote_name(self.name()) if self.keyword("on") else None
        elif not (spec.named_source and (self.char() == ":" or self.is_keyword("by"))):  # without `on`: its name's
            self.expect_keyword("on")
            source = unquote_name(self.name())
            if two_sources:
                self.expect_punct(",")
            if two_sources or self.punct(","):
                target = unquote_name(self.name())
        segment = self.segment()
        self.expect_punct(":")
        body: n.AccuracyBody | n.SelectQuery | n.SelectList
        items: tuple[n.SelectItem, ...] = ()
        if grammar == "accuracy":
            body = self.accuracy()
        elif grammar == "profiling":
            body = self.query()
        else:
            items = self.select_items()
        details = self.details()
        at = self.span(start, self.last_end)
        if grammar == "selections":
            body = n.SelectList(items, **at)  # as convert_suite builds it: at the whole statement
        return s.RuleDecl(kind, name, source, target, body, details, segment, **at)

    def griffin_measure(self, start: int) -> s.GriffinMeasureDecl:
        self.take_word()
        measure_type = unquote_name(self.name())
        name = unquote_name(self.name())
        self.expect_keyword("on")
        source = unquote_name(self.name())
        target = unquote_name(self.name()) if self.punct(",") else None
        self.expect_punct(":")
        items = self.select_items()
        details = self.details()
        at = self.span(start, self.last_end)
        return s.GriffinMeasureDecl(measure_type, name, source, target, n.SelectList(items, **at), details, **at)

    def segment(self) -> s.SegmentBy | None:
        """``by COLUMN`` before a rule's, a measure's or a check's colon, if written."""
        start = self.pos
        if not self.keyword("by"):
            return None
        column = unquote_name(self.name())
        top = int(self.expect(DIGITS)) if self.keyword("top") else None
        return s.SegmentBy(column, top, **self.span(start, self.last_end))

    def details(self) -> tuple[s.Detail, ...]:
        if not self.keyword("with"):
            return ()
        details = []
        while True:
            start = self.pos
            key = self.expect(OPTION_KEY)
            self.expect_punct("=")
            value_at = self.location_at(self.pos)
            value = self.detail_value()
            details.append(s.Detail(key, value, value_at, **self.span(start, self.last_end)))
            if not self.punct(","):
                return tuple(details)

    def detail_value(self) -> object:
        """A ``DetailValue``: a tuple of literals, a literal, or a bare name."""
        if self.punct("("):
            items = []
            if self.char() != ")":
                items.append(self.literal())
                while self.punct(","):
                    items.append(self.literal())
            self.expect_punct(")")
            return tuple(items)
        word = self.word()
        if self.char() == "`" or (word and word not in KEYWORDS):
            return unquote_name(self.name())
        return self.literal()

    def literal(self) -> object:
        """The value of a ``Literal``: time, number, string, boolean, null or nan."""
        char = self.char()
        if char.isdigit() or char == ".":
            time = self.take(TIME)
            return time_literal_ms(time) if time is not None else number_from_text(self.expect(NUMBER))
        if char in ("'", '"'):
            return unquote_string(self.expect(STRING))
        word = self.word()
        if word not in _LITERAL_WORDS:
            raise Unhandled("a literal")
        self.take_word()
        return _LITERAL_WORDS[word]

    def measure(self, start: int) -> s.MeasureDecl:
        self.take_word()
        name = unquote_label(self.expect(LABEL))
        shape = None
        if self.keyword("as"):
            shape = self.word()
            if shape not in ("value", "list", "map"):
                raise Unhandled("a measure shape")
            self.take_word()
        source = unquote_name(self.name()) if self.keyword("on") else None
        segment = self.segment()
        self.expect_punct(":")
        sql = native = query = None
        word = self.word()
        if word in ("sql", "native"):
            native_start = self.pos
            self.take_word()
            if self.char() not in ("'", '"'):
                raise Unhandled("a measure's SQL text")  # textX may read it as a query
            text = unquote_string(self.expect(STRING))
            if word == "sql":
                sql = text
            else:
                native = s.NativeText(text, **self.span(native_start, self.last_end))
        else:
            query = self.query()
        return s.MeasureDecl(name, shape, source, sql, native, query, segment, **self.span(start, self.last_end))

    def policy(self) -> s.PassChecks | s.PassCount | s.PassAlways:
        start, word = self.pos, self.word()
        if word == "checks":
            self.take_word()
            self.expect_punct("(")
            names = [unquote_label(self.expect(LABEL))]
            while self.punct(","):
                names.append(unquote_label(self.expect(LABEL)))
            self.expect_punct(")")
            return s.PassChecks(tuple(names), **self.span(start, self.last_end))
        if word == "passed":
            self.take_word()
            op = self.expect(CHECK_COMPARE_OP)
            count = self.expect(DIGITS)
            return s.PassCount(op, count, **self.span(start, self.last_end))
        if word in ("always", "all", "any"):
            self.take_word()
            return s.PassAlways(word, **self.span(start, self.last_end))
        raise Unhandled("a pass policy")

    # -- the check language -----------------------------------------------------------------------
    def check(self) -> c.CheckExpr:
        """A ``CheckExpression``."""
        return self._check_chain(0)

    def _check_chain(self, level: int) -> c.CheckExpr:
        """Operands joined by the operators of one level: 0 or, 1 and, 2 ``+ -``, 3 ``* / %``."""
        start = self.pos
        operands = [self._check_operand(level)]
        ops = []
        while (op := self._check_op(level)) is not None:
            ops.append(op)
            operands.append(self._check_operand(level))
        if not ops:
            return operands[0]
        return c.CheckChain(tuple(operands), tuple(ops), **self.span(start, self.last_end))

    def _check_operand(self, level: int) -> c.CheckExpr:
        if level == 1:
            return self._check_not()
        if level == 3:
            return self._check_unary()
        return self._check_chain(level + 1)

    def _check_op(self, level: int) -> str | None:
        """The operator of ``level`` here (taken), or None; ``||`` and ``&&`` as their words."""
        if level == 0:
            return "or" if self.punct("||") or self.keyword("or") else None
        if level == 1:
            return "and" if self.punct("&&") or self.keyword("and") else None
        char = self.char()
        if char and char in ("+-" if level == 2 else "*/%"):
            self.advance(self.pos + 1)
            return char
        return None

    def _check_not(self) -> c.CheckExpr:
        """``not``s (or ``!``s) before a comparison, or a sum alone."""
        start, nots = self.pos, 0
        while self.keyword("not") or (self.char() == "!" and not self.starts("!=") and self.punct("!")):
            nots += 1
        compare_start = self.pos
        operand = self._check_chain(2)
        op = self.take(CHECK_COMPARE_OP)
        if op is not None:
            right = self._check_chain(2)
            operand = c.CheckChain((operand, right), (op,), **self.span(compare_start, self.last_end))
        if not nots:
            return operand
        return c.CheckUnary(("not",) * nots, operand, **self.span(start, self.last_end))

    def _check_unary(self) -> c.CheckExpr:
        start, signs = self.pos, []
        while (char := self.char()) in ("-", "+"):
            signs.append(char)
            self.advance(self.pos + 1)
        operand = self._check_access()
        if not signs:
            return operand
        return c.CheckUnary(tuple(reversed(signs)), operand, **self.span(start, self.last_end))

    def _check_access(self) -> c.CheckExpr:
        start = self.pos
        base = self._check_atom()
        subscripts = []
        while self.char() == "[":
            sub_start = self.pos
            self.advance(sub_start + 1)
            index = self.check()
            self.expect_punct("]")
            subscripts.append(c.CheckSubscript(index, **self.span(sub_start, self.last_end)))
        if not subscripts:
            return base
        return c.CheckAccess(base, tuple(subscripts), **self.span(start, self.last_end))

    def _check_atom(self) -> c.CheckExpr:
        start, char = self.pos, self.char()
        if char.isdigit() or char == ".":
            duration = self.take(TIME)
            token = c.duration_token(duration) if duration is not None else self.expect(NUMBER)
            return c.CheckNumber(token, **self.span(start, self.last_end))
        if char in ("'", '"'):
            return c.CheckString(unquote_string(self.expect(STRING)), **self.span(start, self.last_end))
        keyword = CHECK_KEYWORD.match(self.text, start)
        if keyword is not None:
            word = keyword.group().lower()
            if word not in ("true", "false", "null"):
                raise Unhandled(word)
            self.advance(keyword.end())
            at = self.span(start, self.last_end)
            return c.CheckNull(**at) if word == "null" else c.CheckBoolean(word == "true", **at)
        if char in ("[", "("):
            self.advance(start + 1)
            close = "]" if char == "[" else ")"
            items = self._check_items(close) if char == "[" else (self.check(),)
            self.expect_punct(close)
            at = self.span(start, self.last_end)
            return c.CheckList(items, **at) if char == "[" else c.CheckGroup(items[0], **at)
        if COLUMN_START.match(self.text, start):
            source = unquote_name(self.name())
            self.expect_punct(".")
            return c.CheckColumn(source, unquote_name(self.name()), **self.span(start, self.last_end))
        name = self.expect(CHECK_NAME)
        if self.char() != "(":
            return c.CheckName(name, **self.span(start, self.last_end))
        self.advance(self.pos + 1)
        if name == "rows":
            source = unquote_name(self.name())
            condition = self.expression()[0] if self.keyword("where") else None
            self.expect_punct(")")
            return c.CheckRows(name, source, condition, **self.span(start, self.last_end))
        args: tuple[c.CheckExpr | c.CheckNamedArgument, ...] = ()
        if self.char() != ")":
            args = (self._check_argument(),)
            while self.punct(","):
                args += (self._check_argument(),)
        self.expect_punct(")")
        return c.CheckCall(name, args, **self.span(start, self.last_end))

    def _check_argument(self) -> c.CheckExpr | c.CheckNamedArgument:
        """A call's argument: ``name = value`` (one ``=``) or a check expression."""
        start = self.pos
        name = CHECK_NAME.match(self.text, start)
        if name is not None and CHECK_KEYWORD.match(self.text, start) is None:
            after = SKIP.match(self.text, name.end()).end()  # type: ignore[union-attr]
            if self.text.startswith("=", after) and not self.text.startswith("==", after):
                self.advance(after + 1)
                value = self.check()
                return c.CheckNamedArgument(name.group(), value, **self.span(start, self.last_end))
        return self.check()

    def _check_items(self, close: str) -> tuple[c.CheckExpr, ...]:
        """Zero or more check expressions separated by commas, before ``close``."""
        if self.char() == close:
            return ()
        items = [self.check()]
        while self.punct(","):
            items.append(self.check())
        return tuple(items)
