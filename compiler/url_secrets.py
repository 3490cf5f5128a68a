"""Connection URLs as they may be shown: never with their password."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

HIDDEN = "***"


def redact_url(url: str) -> str:
    """A URL as it may be shown: the password, if it holds one, replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", f":{HIDDEN}@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


# scheme://user:password@ anywhere in a text (a line of a suite quoted in an error)
_URL_LOGIN = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s\"']*:)([^@\s\"']*)@")


def redact_urls(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***``."""
    return _URL_LOGIN.sub(lambda m: f"{m.group(1)}{HIDDEN}@", text)
