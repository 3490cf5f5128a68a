"""Connection URLs as they may be shown: never with their password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

HIDDEN = "***"


def redact_url(url: str) -> str:
    """A URL as it may be shown: the password, if it holds one, replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", f":{HIDDEN}@", 1)
    return urlunsplit(parts._replace(netloc=netloc))
