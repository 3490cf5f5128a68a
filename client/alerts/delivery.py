"""Delivering an alert: an HTTP POST of JSON (webhooks, Slack, Teams, ``webhook.py``) or an e-mail
over SMTP (``mail.py``), each within one total deadline and 64 KiB of answer (``bounded_io.py``).
Secrets come from the environment variables the suite names, are registered for redaction as
soon as they are read, and are never stored; so is a webhook URL's path and query, which for
Slack and Teams is the secret."""

from __future__ import annotations

import http.client
import json
import os
import smtplib
import ssl
from email.message import EmailMessage
from urllib.parse import parse_qs, urlsplit

from gryph.compiler.error_codes import ALERT_NOT_SENT
from gryph.compiler.errors import GryphError, InvalidInput
from gryph.compiler.redaction import redact, register_secret
from gryph.compiler.suites.notify_targets import SECRET_OPTIONS, describe_target
from gryph.compiler.suites.suite import NotifySpec

from . import payloads
from .bounded_io import DeliveryLimits, LimitExceeded, run_within
from .mail import ClearTextRefused, send_mail
from .webhook import NotDelivered, post_json


class AlertDeliveryError(GryphError):
    """An alert that could not be delivered; the run's data verdict stands."""

    exit_code = ALERT_NOT_SENT


def resolve_secrets(targets: tuple[NotifySpec, ...]) -> dict[NotifySpec, str]:
    """Each target's secret, read now (before the run): a variable that is not set is refused.
    A webhook's path and query are masked from now on too: for Slack and Teams they are the secret."""
    secrets = {}
    for target in targets:
        if target.kind != "smtp":
            parts = urlsplit(target.url)
            register_secret(parts.path + (f"?{parts.query}" if parts.query else ""))
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
    """Deliver ``message`` to ``target`` within its deadline; any failure is an ``AlertDeliveryError``
    naming the target by kind and host."""
    try:
        run_within(DeliveryLimits(target.timeout_seconds), lambda: _deliver(target, message, secret))
    except (
        OSError,
        smtplib.SMTPException,
        http.client.HTTPException,
        ValueError,
        LimitExceeded,
        NotDelivered,
        ClearTextRefused,
    ) as error:
        raise AlertDeliveryError(
            "ALERT_NOT_SENT",
            f"the alert to {describe_target(target)} was not delivered: {redact(_reason(error))}",
            location=target.location,
            text=describe_target(target),
            hint="the run's verdict and history stand; check the target and run again to alert",
        ) from None


def _deliver(target: NotifySpec, message: dict, secret: str | None) -> None:
    if target.kind == "smtp":
        send_mail(target.url, _mail(target, message), secret)
        return
    payload = {"slack": payloads.slack, "teams": payloads.teams}.get(target.kind, lambda m: m)(message)
    post_json(target.url, json.dumps(payload, ensure_ascii=False).encode(), secret)


def _mail(target: NotifySpec, message: dict) -> EmailMessage:
    query = parse_qs(urlsplit(target.url).query)
    mail = EmailMessage()
    mail["Subject"] = payloads.subject(message)
    mail["From"] = query["from"][0]
    mail["To"] = ", ".join(address.strip() for value in query["to"] for address in value.split(","))
    mail.set_content(payloads.text(message))
    return mail


def _reason(error: BaseException) -> str:
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return "; ".join(f"SMTP {code} {_said(said)} ({to})" for to, (code, said) in error.recipients.items())
    if isinstance(error, smtplib.SMTPResponseException):
        return f"SMTP {error.smtp_code} {_said(error.smtp_error)}"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"the server's certificate is refused: {error.verify_message}"
    if isinstance(error, ssl.SSLError):  # e.g. smtps:// or https:// to a port that speaks no TLS
        return f"the TLS handshake failed ({error.reason or error})"
    return str(error) or type(error).__name__


def _said(reply: bytes | str) -> str:
    return reply.decode(errors="replace") if isinstance(reply, bytes) else reply
