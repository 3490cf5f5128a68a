"""The cursor of the hand-written parser: the grammar's tokens, matched where the parser asks.

The textX grammars (``compiler/language/grammar/``) read tokens with regular expressions tried at a
position after skipping blanks (``\\t \\n \\r`` only) and ``#`` comments, all case-insensitive.
The cursor does the same with the same patterns, so a text reads into the same tokens; keywords
match as whole words (textX's ``autokwd``). Anything the fast parser does not follow exactly
raises ``Unhandled``, and the text goes to textX, which gives the answer (or the error).
"""

from __future__ import annotations

import re

from .positions import Positions

FLAGS = re.IGNORECASE | re.MULTILINE  # what Arpeggio compiles every grammar pattern with

# blanks and comments between tokens: Arpeggio skips `\t\n\r ` and then the Comment rule, in turn
SKIP = re.compile(r"[\t\n\r ]*(?:#[^\n]*[\t\n\r ]*)*", FLAGS)
WORD = re.compile(r"[^\W\d]\w*", FLAGS)  # a plain name or a keyword (PlainName without its lookahead)
QUOTED_NAME = re.compile(r"`(?:[^`]|``)*`", FLAGS)
STRING = re.compile(r"'(?:[^'\\]|\\.)*'|" r'"(?:[^"\\]|\\.)*"', FLAGS)
NUMBER = re.compile(r"(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?(?![\w.])", FLAGS)
TIME = re.compile(r"\d+(?ai:ms|d|h|m|s)\b", FLAGS)
DIGITS = re.compile(r"\d+", FLAGS)

# Characters that Unicode case folding takes to ASCII letters. The grammar's keywords match ASCII
# letters only, but str.lower() turns the Kelvin sign into "k" ("checK" would read as CHECK):
# texts holding them go to textX.
_CASE_FOLDING = re.compile("[\u0130\u0131\u017f\u212a]")


class Unhandled(Exception):
    """The fast parser does not follow this text: textX parses it (and reports any error)."""


class Cursor(Positions):
    """A position in a text, always at the start of the next token (blanks and comments skipped)."""

    def __init__(self, text: str, file: str | None, line_offset: int = 0, column_offset: int = 0) -> None:
        if _CASE_FOLDING.search(text):
            raise Unhandled("case-folding characters")
        super().__init__(text, file, line_offset, column_offset)
        self.text = text
        self.pos = SKIP.match(text, 0).end()  # type: ignore[union-attr]  # SKIP matches everywhere
        self.last_end = 0  # where the last token taken ends
        self._word_at = self._word_end = -1
        self._word = ""

    # -- looking ----------------------------------------------------------------------------------
    def char(self) -> str:
        """The first character of the next token ('' at the end)."""
        return self.text[self.pos : self.pos + 1]

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def word(self) -> str:
        """The next token as a lower-case word ('' when it is none)."""
        if self._word_at != self.pos:
            match = WORD.match(self.text, self.pos)
            self._word_at, self._word_end = self.pos, match.end() if match else self.pos
            self._word = match.group().lower() if match else ""
        return self._word

    def is_keyword(self, keyword: str) -> bool:
        return self.word() == keyword

    def starts(self, token: str) -> bool:
        return self.text.startswith(token, self.pos)

    def mark(self) -> tuple[int, int]:
        """Where the cursor stands, to come back with ``reset``."""
        return self.pos, self.last_end

    def reset(self, mark: tuple[int, int]) -> None:
        self.pos, self.last_end = mark

    # -- taking -----------------------------------------------------------------------------------
    def advance(self, end: int) -> None:
        """Take the token up to ``end`` and skip what follows it."""
        self.last_end = end
        self.pos = SKIP.match(self.text, end).end()  # type: ignore[union-attr]

    def take(self, pattern: re.Pattern[str]) -> str | None:
        """The token ``pattern`` matches here (taken), or None."""
        match = pattern.match(self.text, self.pos)
        if match is None or not match.group():
            return None
        self.advance(match.end())
        return match.group()

    def expect(self, pattern: re.Pattern[str]) -> str:
        token = self.take(pattern)
        if token is None:
            raise Unhandled(pattern.pattern)
        return token

    def take_word(self) -> str:
        """The next word as written (taken); the caller has looked at it."""
        start = self.pos
        self.word()
        self.advance(self._word_end)
        return self.text[start : self.last_end]

    def keyword(self, keyword: str) -> bool:
        """Take ``keyword`` (a whole word, any case) if it comes next."""
        if self.word() != keyword:
            return False
        self.advance(self._word_end)
        return True

    def punct(self, token: str) -> bool:
        """Take the punctuation ``token`` if it comes next."""
        if not self.text.startswith(token, self.pos):
            return False
        self.advance(self.pos + len(token))
        return True

    def expect_keyword(self, keyword: str) -> None:
        _required(self.keyword(keyword), keyword)

    def expect_punct(self, token: str) -> None:
        _required(self.punct(token), token)


def _required(found: bool, what: str) -> None:
    if not found:
        raise Unhandled(what)
