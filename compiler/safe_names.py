"""User-given names (rules, record outputs, jobs, charts) as file names that stay in their folder.

Ordinary names are kept as they are. A character that could leave the folder, hide the file or
break a tool is percent-encoded as its UTF-8 bytes (``a/b`` -> ``a%2Fb``), and ``%`` itself too,
so two different names never share a file. Look-alikes of ``/`` and ``.`` (U+2215, U+FF0F,
U+2024, ...) are kept: no file system takes them for separators.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata

from .errors import InvalidInput, Location

MAX_BYTES = 200  # of an encoded name: room left under the usual 255 for a suffix and a temporary prefix
HASH_CHARS = 16  # of the sha256 that ends a name cut to fit
# separators (``:`` is one in Hadoop paths, which Spark writes through), the escape character
ESCAPED = frozenset("/\\:%")
# control, format (bidi overrides), surrogate, line and paragraph separator characters
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
EMPTY = "%"  # no other encoded name is a lone ``%``: every other one is followed by two hex digits


def safe_file_name(name: str) -> str:
    """``name`` as one file name: unsafe characters percent-encoded, and dots and spaces at either
    end (``..``, ``.hidden``); beyond ``MAX_BYTES``, cut and ended with ``~`` and a hash of the name."""
    if not name:
        return EMPTY
    pieces = [_encoded(char) if _escaped(char) else char for char in name]
    for index in _edges(name):
        pieces[index] = _encoded(name[index])
    if sum(len(piece.encode("utf-8")) for piece in pieces) <= MAX_BYTES:
        return "".join(pieces)
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]
    kept, size = [], 0
    for piece in pieces:  # whole pieces only: an escape is never cut in half
        size += len(piece.encode("utf-8"))
        if size > MAX_BYTES - 1 - HASH_CHARS:
            break
        kept.append(piece)
    return "".join(kept) + "~" + digest


def path_inside(folder: str, name: str, suffix: str = "") -> str:
    """``folder/NAME + suffix`` for a user-given ``name``, checked to be an entry of ``folder``
    itself. The check is on the path as written: a link the user put in their own folder is theirs."""
    entry = safe_file_name(name) + suffix
    path = os.path.join(folder, entry)
    if os.sep in entry or os.path.dirname(os.path.normpath(path)) != os.path.normpath(folder):
        raise InvalidInput(
            "BAD_OUTPUT_PATH",
            f"{name!r} names a file outside {folder}",
            location=Location(file=folder),
            text=name,
        )
    return path


def _escaped(char: str) -> bool:
    return char in ESCAPED or unicodedata.category(char) in ESCAPED_CATEGORIES


def _edges(name: str) -> list[int]:
    """The positions of the dots and spaces that start or end ``name``."""
    start = len(name) - len(name.lstrip(". "))
    end = len(name.rstrip(". "))
    return list(range(start)) + list(range(max(end, start), len(name)))


def _encoded(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
