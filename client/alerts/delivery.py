"""Delivering an alert: an HTTP POST of JSON (webhooks, Slack, Teams) or an e-mail over SMTP,
each bounded by a timeout. Secrets come from the environment variables the suite names, are
registered for redaction as soon as they are read, and are never stored."""

from __future__ import annotations

import json
import os
import smtplib
import urllib.error
import urllib.request
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

from gryph.compiler.error_codes import ALERT_NOT_SENT
from gryph.compiler.errors import GryphError, InvalidInput
from gryph.compiler.redaction import redact, register_secret
from gryph.compiler.suites.notify_targets import SECRET_OPTIONS, describe_target
from gryph.compiler.suites.suite import NotifySpec

from . import payloads

TIMEOUT_SECONDS = 10.0  # per delivery: a target that does not answer never holds up the run's exit


class AlertDeliveryError(GryphError):
    """An alert that could not be delivered; the run's data verdict stands."""

    exit_code = ALERT_NOT_SENT


def resolve_secrets(targets: tuple[NotifySpec, ...]) -> dict[NotifySpec, str]:
    """Each target's secret, read now (before the run): a variable that is not set is refused."""
    secrets = {}
    for target in targets:
        if target.secret_env is None:
            continue
        value = os.environ.get(target.secret_env)
        if value is None:
            raise InvalidInput(
                "MISSING_CREDENTIAL",
                f"notify {describe_target(target)}: the environment variable {target.secret_env!r} "
                f"({SECRET_OPTIONS[target.kind]}) is not set",
                location=target.location,
                text=target.secret_env,
                hint=f"export {target.secret_env}=... before the run",
            )
        register_secret(value)
        secrets[target] = value
    return secrets


def send(target: NotifySpec, message: dict, secret: str | None) -> None:
    """Deliver ``message`` to ``target``; any failure is an ``AlertDeliveryError`` naming the target by kind and host."""
    try:
        if target.kind == "smtp":
            _mail(target, message, secret)
        else:
            payload = {"slack": payloads.slack, "teams": payloads.teams}.get(target.kind, lambda m: m)(message)
            _post(target.url, payload, secret)
    except (OSError, smtplib.SMTPException, ValueError) as error:
        raise AlertDeliveryError(
            "ALERT_NOT_SENT",
            f"the alert to {describe_target(target)} was not delivered: {redact(_reason(error))}",
            location=target.location,
            text=describe_target(target),
            hint="the run's verdict and history stand; check the target and run again to alert",
        ) from None


def _post(url: str, payload: dict, token: str | None) -> None:
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "gryph"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = json.dumps(payload, ensure_ascii=False).encode()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
        response.read()


def _mail(target: NotifySpec, message: dict, password: str | None) -> None:
    parts = urlsplit(target.url)
    query = parse_qs(parts.query)
    mail = EmailMessage()
    mail["Subject"] = payloads.subject(message)
    mail["From"] = query["from"][0]
    mail["To"] = ", ".join(address for value in query["to"] for address in value.split(","))
    mail.set_content(payloads.text(message))
    with smtplib.SMTP(parts.hostname or "", parts.port or 25, timeout=TIMEOUT_SECONDS) as server:
        if password is not None:
            if server.has_extn("starttls"):
                server.starttls()
            server.login(unquote(parts.username or mail["From"]), password)
        server.send_message(mail)


def _reason(error: BaseException) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return "; ".join(f"SMTP {code} {_said(said)} ({to})" for to, (code, said) in error.recipients.items())
    if isinstance(error, smtplib.SMTPResponseException):
        return f"SMTP {error.smtp_code} {_said(error.smtp_error)}"
    return str(error) or type(error).__name__


def _said(reply: bytes | str) -> str:
    return reply.decode(errors="replace") if isinstance(reply, bytes) else reply
