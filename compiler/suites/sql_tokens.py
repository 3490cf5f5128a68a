"""SQL text cut into tokens by the lexical rules of the dialect that will read it, so that a
``--var`` value is placed knowing exactly what surrounds it (``sql_values.py``).

Spark SQL (``sql "..."``) is cut by sqlglot's Spark tokenizer, the one that also translates it for
DuckDB; the text a database runs (``native "..."``, a source's ``query``) by that database's own
rules, written out here because no tokenizer at hand follows them exactly:

- PostgreSQL (``standard_conforming_strings`` on, as every session gryph opens sets it):
  ``--`` and nested ``/* */`` comments; ``'..''..'`` strings, ``E'..'`` with backslash escapes,
  ``U&'..'``, ``B'..'`` and ``X'..'``; ``$tag$...$tag$`` dollar quotes; ``"..""..`` names.
- MySQL and MariaDB: ``#``, ``-- `` (a space or control character after the dashes) and
  ``/* */`` comments, ``/*! */`` and ``/*M! */`` comments the server runs as code; ``'..'`` and
  ``".."`` strings with backslash escapes (``".."`` a name in ANSI_QUOTES mode, and backslashes
  plain characters in NO_BACKSLASH_ESCAPES mode); `````..````` names.
- SQLite: ``--`` and ``/* */`` comments; ``'..''..'`` strings, ``X'..'`` blobs; ``".."`` (a name,
  or a string when no column has that name), `````..````` and ``[..]`` names.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

DIALECTS = ("spark", "postgres", "mysql", "sqlite")


@dataclass(frozen=True)
class Token:
    """``text[start:end]`` read as one token: ``kind`` is string, name (a quoted identifier),
    comment, word or other; ``flavour`` tells a string's or comment's rules apart."""

    kind: str
    start: int
    end: int
    flavour: str = ""


class Unterminated(ValueError):
    """A string, name or comment that the text never closes."""


def tokens(sql: str, dialect: str) -> list[Token]:
    """The tokens of ``sql`` (whitespace left out; comments kept, except Spark's, which sqlglot
    drops: the gaps between Spark's tokens are whitespace and comments)."""
    if dialect == "spark":
        return _spark_tokens(sql)
    return _NativeLexer(sql, dialect).run()


def _spark_tokens(sql: str) -> list[Token]:
    # imported here: sqlglot takes a quarter of a second to load, and most suites hold no SQL
    import sqlglot
    from sqlglot.errors import SqlglotError
    from sqlglot.tokens import TokenType

    try:
        found = sqlglot.tokenize(sql, read="spark")
    except SqlglotError:  # its message quotes the text, markers and all
        raise Unterminated("a quote or comment is never closed") from None
    kinds = {
        TokenType.STRING: ("string", "backslash"),
        TokenType.RAW_STRING: ("string", "raw"),
        TokenType.IDENTIFIER: ("name", ""),
        TokenType.VAR: ("word", ""),
    }
    out = []
    for token in found:
        if token.token_type in kinds:
            kind, flavour = kinds[token.token_type]
        elif token.token_type.name.endswith("STRING"):  # hex, bit, byte, national, heredoc
            kind, flavour = "string", "other"
        else:  # a keyword, a number or an operator
            kind, flavour = "other", ""
        out.append(Token(kind, token.start, token.end + 1, flavour))
    return out


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A word and a dollar quote's tag; compiled at the first ``${...}`` placed, not at start-up
    (their Unicode classes take 10 ms to compile, and most runs place no value in SQL)."""
    word = re.compile(r"[A-Za-z_\u0080-\U0010ffff][\w$\u0080-\U0010ffff]*|[0-9][\w.$]*")
    dollar_tag = re.compile(r"\$(?:[A-Za-z_\u0080-\U0010ffff][\w\u0080-\U0010ffff]*)?\$")
    return word, dollar_tag


# a word that, followed at once by a quote, makes the string one of another kind
_PREFIXES = {
    "postgres": {"e": "escape", "n": "standard", "b": "other", "x": "other", "u&": "other"},
    "mysql": {"n": "backslash", "b": "other", "x": "other"},
    "sqlite": {"x": "other"},
}
_CLOSING_NAME = {"`": "`", "[": "]"}


class _NativeLexer:
    def __init__(self, sql: str, dialect: str) -> None:
        self.sql, self.dialect = sql, dialect
        self.out: list[Token] = []

    def run(self) -> list[Token]:
        sql, pos = self.sql, 0
        while pos < len(sql):
            char = sql[pos]
            if char.isspace():
                pos += 1
            elif self._line_comment_at(pos):
                end = _line_end(sql, pos)
                self.out.append(Token("comment", pos, end, "line"))
                pos = end
            elif sql.startswith("/*", pos):
                pos = self._block_comment(pos)
            elif char == "'":
                pos = self._string(pos, pos, "backslash" if self.dialect == "mysql" else "standard")
            elif char == '"':
                pos = self._double_quoted(pos)
            elif (char == "`" and self.dialect != "postgres") or (char == "[" and self.dialect == "sqlite"):
                end = self._quoted_end(pos + 1, _CLOSING_NAME[char], doubled=char == "`")
                self.out.append(Token("name", pos, end))
                pos = end
            elif char == "$" and self.dialect == "postgres" and _patterns()[1].match(sql, pos):
                pos = self._dollar_quoted(pos)
            elif sql.startswith(("u&'", "U&'", 'u&"', 'U&"'), pos) and self.dialect == "postgres":
                pos = self._string(pos, pos + 2, "other") if sql[pos + 2] == "'" else self._name(pos, pos + 2)
            elif match := _patterns()[0].match(sql, pos):
                pos = self._word(match)
            else:
                self.out.append(Token("other", pos, pos + 1))
                pos += 1
        return self.out

    def _line_comment_at(self, pos: int) -> bool:
        sql = self.sql
        if self.dialect == "mysql":
            # MySQL's -- starts a comment only before a space or control character (or the end)
            after = sql[pos + 2 : pos + 3]
            return sql[pos] == "#" or (sql.startswith("--", pos) and (after == "" or after <= " "))
        return sql.startswith("--", pos)

    def _block_comment(self, pos: int) -> int:
        sql, depth, index = self.sql, 1, pos + 2
        nested = self.dialect == "postgres"
        while depth:
            if index >= len(sql):
                if self.dialect == "sqlite":  # SQLite ends an open comment with the text
                    break
                raise Unterminated(f"a /* comment at {pos} has no */")
            if sql.startswith("*/", index):
                depth, index = depth - 1, index + 2
            elif nested and sql.startswith("/*", index):
                depth, index = depth + 1, index + 2
            else:
                index += 1
        runs = self.dialect == "mysql" and sql.startswith(("/*!", "/*M!"), pos)
        self.out.append(Token("comment", pos, min(index, len(sql)), "code" if runs else "block"))
        return index

    def _string(self, start: int, quote_at: int, flavour: str) -> int:
        backslashes = flavour in ("backslash", "escape")
        end = self._quoted_end(quote_at + 1, "'", doubled=True, backslashes=backslashes)
        self.out.append(Token("string", start, end, flavour))
        return end

    def _name(self, start: int, quote_at: int) -> int:
        end = self._quoted_end(quote_at + 1, '"', doubled=True)
        self.out.append(Token("name", start, end))
        return end

    def _double_quoted(self, pos: int) -> int:
        if self.dialect == "postgres":
            return self._name(pos, pos)
        # MySQL: a string, or a name in ANSI_QUOTES mode; SQLite: a name, or a string
        backslashes = self.dialect == "mysql"
        end = self._quoted_end(pos + 1, '"', doubled=True, backslashes=backslashes)
        self.out.append(Token("string", pos, end, "ambiguous"))
        return end

    def _dollar_quoted(self, pos: int) -> int:
        match = _patterns()[1].match(self.sql, pos)
        assert match is not None
        close = self.sql.find(match.group(0), match.end())
        if close < 0:
            raise Unterminated(f"the dollar quote {match.group(0)} at {pos} is never closed")
        end = close + len(match.group(0))
        self.out.append(Token("string", pos, end, "dollar"))
        return end

    def _word(self, match: re.Match[str]) -> int:
        sql, end = self.sql, match.end()
        flavour = _PREFIXES[self.dialect].get(match.group(0).lower())
        if flavour is not None and sql[end : end + 1] == "'":
            return self._string(match.start(), end, flavour)
        self.out.append(Token("word", match.start(), end))
        return end

    def _quoted_end(self, index: int, close: str, doubled: bool = False, backslashes: bool = False) -> int:
        sql = self.sql
        while index < len(sql):
            char = sql[index]
            if backslashes and char == "\\":
                index += 2
            elif char == close and doubled and sql[index + 1 : index + 2] == close:
                index += 2
            elif char == close:
                return index + 1
            else:
                index += 1
        raise Unterminated(f"a {close} quote is never closed")


def _line_end(sql: str, pos: int) -> int:
    ends = [i for i in (sql.find("\n", pos), sql.find("\r", pos)) if i >= 0]
    return min(ends) if ends else len(sql)
