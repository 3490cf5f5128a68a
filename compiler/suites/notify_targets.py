"""Alert targets (``notify "URL"`` statements, ``--notify URL``), checked before anything runs.

A target's URL may itself be a secret (the path of a Slack or Teams incoming webhook is one), so
messages name a target by its kind and host only (``describe_target``) and a refused URL by its
scheme only. Everything a delivery could trip on is refused here as ``BAD_NOTIFY``: an unknown
scheme, a missing or malformed host, a port that is not a number from 1 to 65535, spaces, control
or non-ASCII characters, a ``%`` that starts no escape, a fragment (``#...``, which no delivery
sends), and credentials written into the URL (``user:password@`` would otherwise
travel as plain text in the suite; secrets come from ``token_env`` / ``password_env``).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from urllib.parse import SplitResult, parse_qs, urlsplit

from ..errors import InvalidInput, Location, did_you_mean, with_article
from ..language.ruletree.statements import Detail
from ..language.time_literals import duration_literal, duration_ms
from .suite import DEFAULT_NOTIFY_TIMEOUT_SECONDS, NotifySpec

PREFIXES = ("slack:", "teams:")  # before an http(s) URL: that service's incoming-webhook payload
SECRET_OPTIONS = {"webhook": "token_env", "slack": "token_env", "teams": "token_env", "smtp": "password_env"}
# smtp: STARTTLS (required before a password); smtps: TLS from the first byte; smtp+insecure: a
# local relay reached in clear, password included, only when the suite says so
MAIL_SCHEMES = ("smtp", "smtps", "smtp+insecure")
LONGEST_TIMEOUT_SECONDS = 3600
SHORTEST_REPEAT_MS = 60_000  # a repeat is for an incident left open, not a retry loop
TONES = ("fail", "warn", "error")  # what `notify ... on` may name; a recovery follows what was told
_TONE_HINT = "on fail, warn or error (a recovery goes to the targets told of what recovered)"
_FORMS = (
    'notify "https://...", "slack:https://...", "teams:https://...", "smtp://host:587/?from=...&to=...", '
    '"smtps://host:465/?from=...&to=..." or "smtp+insecure://localhost:25/?from=...&to=..."'
)
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
_DOTTED_NUMBERS = re.compile(r"[0-9.]+")
_ADDRESS = re.compile(r"[^\s@<>,]+@[^\s@<>,]+")
_BAD_ESCAPE = re.compile("%(?![0-9A-Fa-f]{2})")


def notify_target(
    url: str,
    location: Location | None = None,
    details: Sequence[Detail] = (),
    tones: tuple[str, ...] = (),
    checks: tuple[str, ...] = (),
    segments: tuple[object, ...] = (),
) -> NotifySpec:
    """The target ``url`` names, with the variable holding its secret (``token_env`` for a
    webhook's bearer token, ``password_env`` for an SMTP login), its delivery's deadline
    (``timeout``, seconds), the tones, checks and segments it is told of and how often an open
    incident is told again (``repeat``); anything else is ``BAD_NOTIFY``."""
    kind, address = _kind(url)
    if kind is None:
        raise _bad(url, f"{_scheme(url)!r} is no alert target", location, _FORMS)
    found = _text_problem(address)
    if found is not None:
        raise _bad(url, found[0], location, found[1])
    try:
        parts = urlsplit(address)
    except ValueError:  # a "[" without its "]"
        problem: str | None = "the host in brackets is no IPv6 address"
    else:
        problem = _address_problem(kind, parts)
    if problem is not None:
        raise _bad(url, problem, location, None)
    secret_env, timeout, repeat_ms = _options(url, kind, details, location)
    tones = _tones(url, tones, location)
    return NotifySpec(
        kind, address, secret_env, location, timeout, tones, checks, repeat_ms, tuple(dict.fromkeys(segments))
    )


def _tones(url: str, tones: tuple[str, ...], location: Location | None) -> tuple[str, ...]:
    for tone in tones:
        if tone.lower() not in TONES:
            raise _bad(url, f"{tone!r} is no tone to alert on", location, did_you_mean(tone, TONES) or _TONE_HINT)
    return tuple(dict.fromkeys(tone.lower() for tone in tones))


def describe_target(target: NotifySpec) -> str:
    """A target as messages show it: its kind and host, never its path or query (a webhook's secret)."""
    parts = urlsplit(target.url)
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    port = f":{parts.port}" if parts.port else ""
    return f"{target.kind} {host}{port}"


def _kind(url: str) -> tuple[str | None, str]:
    for prefix in PREFIXES:
        if url.lower().startswith(prefix):
            address = url[len(prefix) :]
            return (prefix[:-1] if _scheme(address) in ("http", "https") else None), address
    scheme = _scheme(url)
    if scheme in ("http", "https"):
        return "webhook", url
    return ("smtp" if scheme in MAIL_SCHEMES else None), url


def _text_problem(url: str) -> tuple[str, str] | None:
    """What no target's URL may hold, whatever its kind, by position (never the text around it,
    which may be its secret): a space, control or non-ASCII character, a ``%`` that starts no
    escape (sent as it is, or decoded to something else), a fragment (dropped by every delivery).
    The problem and its hint."""
    for position, char in enumerate(url, 1):
        if char.isspace():
            return f"the URL holds a space at character {position}", "write a space as %20"
        if not char.isprintable() or not char.isascii():
            return (
                f"the URL holds the character U+{ord(char):04X} at character {position}",
                "percent-encode it (in a host name, write its xn-- form)",
            )
    escape = _BAD_ESCAPE.search(url)
    if escape is not None:
        return (
            f"the URL holds a % at character {escape.start() + 1} that is not followed by two hex digits",
            "a % starts an escape such as %2F; write a % itself as %25",
        )
    if "#" in url:
        return (
            f"the URL holds a fragment (#...) at character {url.index('#') + 1}, which no delivery sends",
            "remove it, or write a # itself as %23",
        )
    return None


def _address_problem(kind: str, parts: SplitResult) -> str | None:
    """What is wrong with the URL's host, port, credentials or (for e-mail) addresses."""
    if "@" in parts.netloc:
        user, _, _ = parts.netloc.rpartition("@")
        if kind != "smtp":
            return 'the URL holds a user name or password: give a token with token_env = "NAME"'
        if ":" in user:
            return 'the URL holds a password: give it with password_env = "NAME"'
    return _host_problem(parts) or _port_problem(parts) or (_mail_problem(parts) if kind == "smtp" else None)


def _port_problem(parts: SplitResult) -> str | None:
    host_and_port = parts.netloc.rpartition("@")[2]
    after_host = host_and_port.rpartition("]")[2] if host_and_port.startswith("[") else host_and_port
    _, colon, port = after_host.partition(":")
    if colon and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        return "the port is not a number from 1 to 65535"
    return None


def _host_problem(parts: SplitResult) -> str | None:
    host = parts.hostname
    if not host:
        return "the URL names no host"
    if parts.netloc.rpartition("@")[2].startswith("["):
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return "the host in brackets is no IPv6 address"
        return None
    if _DOTTED_NUMBERS.fullmatch(host):
        try:
            ipaddress.IPv4Address(host.rstrip("."))
        except ValueError:
            return "the host is no IPv4 address"
        return None
    if not _HOST_NAME.fullmatch(host) or len(host) > 253:
        return "the host is no host name (letters, digits, '-' and '.')"
    return None


def _mail_problem(parts: SplitResult) -> str | None:
    if parts.path not in ("", "/"):
        return "an e-mail target has no path: smtp://host:port/?from=...&to=..."
    query = parse_qs(parts.query)
    missing = [key for key in ("from", "to") if not query.get(key)]
    if missing:
        return f"an e-mail needs {' and '.join(missing)}="
    for key in ("from", "to"):
        for value in query[key]:
            for address in value.split(","):
                if not _ADDRESS.fullmatch(address.strip()) or not address.isprintable():
                    return f"{key}= holds something that is no e-mail address (name@host)"
    return None


def _options(
    url: str, kind: str, details: Sequence[Detail], location: Location | None
) -> tuple[str | None, float, int | None]:
    secret_option = SECRET_OPTIONS[kind]
    secret_env, timeout, repeat_ms = None, DEFAULT_NOTIFY_TIMEOUT_SECONDS, None
    for detail in details:
        key, value = detail.key, detail.value
        if key == "repeat":
            repeat_ms = _repeat_ms(url, detail, location)
            continue
        if key == "timeout":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise _bad(url, "timeout is a number of seconds", location, "timeout = 30")
            if not 0 < value <= LONGEST_TIMEOUT_SECONDS:
                raise _bad(url, f"timeout must be more than 0 and at most {LONGEST_TIMEOUT_SECONDS} seconds",
                           location, "timeout = 30")  # fmt: skip
            timeout = float(value)
        elif key != secret_option:
            raise _bad(
                url,
                f"{with_article(kind)} target takes no option {key!r}",
                location,
                did_you_mean(key, [secret_option, "timeout", "repeat"]),
            )
        elif not isinstance(value, str) or not value:
            raise _bad(url, f"{key} names an environment variable: a string", location, f'{key} = "NAME"')
        else:
            secret_env = value
    return secret_env, timeout, repeat_ms


def _repeat_ms(url: str, detail: Detail, location: Location | None) -> int:
    """``repeat = 6h`` (a time literal, in milliseconds) or ``repeat = "6h"``: at least a minute."""
    try:
        ms = duration_ms(detail.value)
    except ValueError:
        ms = None
    if ms is None or not ms >= SHORTEST_REPEAT_MS:
        # the value as the suite writes it: a time literal reaches here in milliseconds
        written = detail.text.split("=", 1)[1].strip()
        if ms is not None and written.isdigit():
            written += f" (a number is milliseconds: {duration_literal(ms)})"
        problem = f"repeat must be a time of at least {duration_literal(SHORTEST_REPEAT_MS)}, got {written}"
        raise _bad(url, problem, location, "repeat = 6h")
    return int(ms)


def _scheme(url: str) -> str:
    scheme = url.split(":", 1)[0].lower() if ":" in url else url[:20]
    return "".join(c if c.isprintable() and not c.isspace() else "?" for c in scheme)


def _bad(url: str, problem: str, location: Location | None, hint: str | None) -> InvalidInput:
    shown = _scheme(url) + ":..." if ":" in url else _scheme(url)
    return InvalidInput("BAD_NOTIFY", f"notify {shown}: {problem}", location=location, text=shown, hint=hint)
