"""Alert targets (``notify "URL"`` statements, ``--notify URL``), checked before anything runs.

A target's URL may itself be a secret (a Slack or Teams incoming webhook is one), so messages
name a target by its kind and host only (``describe_target``).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qs, urlsplit

from ..errors import InvalidInput, Location, did_you_mean
from .suite import NotifySpec

PREFIXES = ("slack:", "teams:")  # before an http(s) URL: that service's incoming-webhook payload
SECRET_OPTIONS = {"webhook": "token_env", "slack": "token_env", "teams": "token_env", "smtp": "password_env"}
_FORMS = 'notify "https://...", "slack:https://...", "teams:https://..." or "smtp://host:25/?from=...&to=..."'


def notify_target(
    url: str, location: Location | None = None, options: Mapping[str, object] | None = None
) -> NotifySpec:
    """The target ``url`` names, with the variable holding its secret (``token_env`` for a
    webhook's bearer token, ``password_env`` for an SMTP login); anything else is ``BAD_NOTIFY``."""
    kind, address = _kind(url)
    if kind is None:
        raise _bad(url, f"{_scheme(url)!r} is no alert target", location, _FORMS)
    parts = urlsplit(address)
    if not parts.hostname:
        raise _bad(url, "the URL names no host", location, _FORMS)
    if kind == "smtp":
        query = parse_qs(parts.query)
        missing = [key for key in ("from", "to") if not query.get(key)]
        if missing:
            raise _bad(url, f"an e-mail needs {' and '.join(missing)}=", location, _FORMS)
    secret_option = SECRET_OPTIONS[kind]
    secret_env = None
    for key, value in (options or {}).items():
        if key != secret_option:
            raise _bad(url, f"a {kind} target takes no option {key!r}", location, did_you_mean(key, [secret_option]))
        if not isinstance(value, str) or not value:
            raise _bad(url, f"{key} names an environment variable: a string", location, f'{key} = "NAME"')
        secret_env = value
    return NotifySpec(kind, address, secret_env, location)


def describe_target(target: NotifySpec) -> str:
    """A target as messages show it: its kind and host, never its path or query (a webhook's secret)."""
    parts = urlsplit(target.url)
    port = f":{parts.port}" if parts.port else ""
    return f"{target.kind} {parts.hostname}{port}"


def _kind(url: str) -> tuple[str | None, str]:
    for prefix in PREFIXES:
        if url.lower().startswith(prefix):
            address = url[len(prefix) :]
            return (prefix[:-1] if _scheme(address) in ("http", "https") else None), address
    scheme = _scheme(url)
    if scheme in ("http", "https"):
        return "webhook", url
    return ("smtp" if scheme == "smtp" else None), url


def _scheme(url: str) -> str:
    return url.split(":", 1)[0].lower() if ":" in url else url[:20]


def _bad(url: str, problem: str, location: Location | None, hint: str | None) -> InvalidInput:
    shown = _scheme(url) + ":..." if ":" in url else url[:40]
    return InvalidInput("BAD_NOTIFY", f"notify {shown}: {problem}", location=location, text=shown, hint=hint)
