"""User and data text made inert where people read it: on a terminal and in a Markdown summary.

A name or a value may hold anything. Printed raw, an escape sequence recolours or clears the
terminal, a carriage return overwrites what was shown, a bidi override reorders it; in Markdown a
line break or a ``|`` forges table rows and ``<`` opens live HTML. Each such character is shown
as its escape (``\\x1b``, ``\\u202e``) or as the Markdown text that renders it literally.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the bidi embeddings, overrides and isolates
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

# what Markdown (GitHub's flavour) reads as markup inside a line: escapes, code spans, emphasis,
# strikethrough, table cells
_MARKUP = re.compile(r"([\\`*_~|])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def spelled(match: re.Match[str]) -> str:
    """The matched character as the escape a reader recognises: ``\\x1b``, ``\\u202e``."""
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str) -> str:
    """``text`` as one stretch of a terminal line: every control character spelled out."""
    return CONTROLS.sub(spelled, text)


def for_terminal_lines(text: str) -> str:
    """Text of several lines (an error with its ``near:`` and ``hint:``): line breaks kept,
    every other control character spelled out."""
    return "\n".join(for_terminal(line) for line in text.split("\n"))


def json_for_terminal(text: str) -> str:
    """JSON text for a terminal: each control character as a ``\\u`` escape, so it stays JSON
    (only a string can hold one)."""
    return CONTROLS.sub(lambda match: f"\\u{ord(match[0]):04x}", text)


def for_markdown(text: str) -> str:
    """``text`` as Markdown that renders as exactly this text on one line (a table cell, a
    heading): markup escaped with a backslash, ``& < >`` as entities, controls spelled out."""
    text = _MARKUP.sub(r"\\\1", text)
    # a link or image needs "](": with its "(" escaped, brackets stay text (a reference link
    # would need a definition, which only starts a line, and a line break is spelled out)
    text = text.replace("](", "]\\(")
    text = re.sub("[&<>]", lambda match: _ENTITIES[match[0]], text)
    return CONTROLS.sub(spelled, text)
