"""Secrets as they may be shown: never. The one place text is redacted before anyone sees it.

Every message, ``near:`` text, source description, result document and history row passes
through ``redact``. It masks what looks like a secret wherever it stands (a URL's password, a
``?password=`` or ``;token=`` parameter, a libpq ``password=`` setting, a JSON ``"password":``
member) and every value registered with ``register_secret`` (credentials read from the
environment), as written and URL-encoded.
"""

from __future__ import annotations

import re
from typing import TypeVar, cast
from urllib.parse import quote, quote_plus

HIDDEN = "***"
Document = TypeVar("Document")

# names of settings whose value is a secret: password, sslpassword, client_secret, api_key, ...
_SECRET_NAME = r"(?:[\w.-]*[._-])?(?:ssl)?(?:password|passwd|pwd|passphrase|secret|token|api_?key|access_?key|key)"

_PATTERNS = (
    # scheme://user:password@host: up to the last @ of the URL, so an unencoded / ? # @ stays hidden;
    # taken from the start of its run of scheme characters, so a long word is scanned once, not
    # once from each of its letters (a megabyte-long value took minutes)
    (re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z0-9+.-]*://[^:/@\s\"']*:)[^\s\"']*@"), rf"\g<1>{HIDDEN}@"),
    # ?password=...&sslpassword=... (URLs), ;token=... (Spark Connect URLs)
    (re.compile(rf"(?i)(?<=[?&;])({_SECRET_NAME})=[^&#;\s\"']*"), rf"\1={HIDDEN}"),
    # libpq key=value connection strings: password=secret, password = 'a secret'
    (
        re.compile(r"(?i)\b((?:ssl)?(?:password|passwd|pwd))(\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|[^\s'\"&;]+)"),
        rf"\1\2{HIDDEN}",
    ),
    # JSON members: "password": "secret" (its closing quote may be cut off, or missing in bad JSON)
    (
        re.compile(rf'(?i)("{_SECRET_NAME}"\s*:\s*)(?:"(?:[^"\\]|\\.)*"?|[^\s,}}\]]+)'),
        rf'\1"{HIDDEN}"',
    ),
)

_registered: set[str] = set()
# A registered value shorter than this is not masked as a plain substring: a one-letter password
# would turn every "a" of every name and value into ***. Where it stands as a password (a URL's
# user-info, password=, a JSON "password" member) the patterns above still hide it.
SHORTEST_MASKED = 4


def register_secret(value: str | None) -> None:
    """Mask ``value`` (as written and URL-encoded) wherever it appears from now on, unless it is
    shorter than ``SHORTEST_MASKED`` characters."""
    if value and len(value) >= SHORTEST_MASKED:
        _registered.update({value, quote(value, safe=""), quote_plus(value, safe="")})


def redact(text: str) -> str:
    """``text`` with every secret in it replaced by ``***``."""
    for value in sorted(_registered, key=len, reverse=True):  # longest first: one may contain another
        text = text.replace(value, HIDDEN)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_document(value: Document) -> Document:
    """A JSON-like document (dicts, lists, tuples, strings) with every string value in it redacted.

    Keys are gryph's own field names and the suite's rule and metric names, never secrets, and
    readers look values up by them: they stay as they are."""
    if isinstance(value, str):
        return cast(Document, redact(value))
    if isinstance(value, dict):
        return cast(Document, {k: redact_document(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return cast(Document, type(value)(redact_document(v) for v in value))
    return value
