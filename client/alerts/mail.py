"""An alert as an e-mail over SMTP, with a password only ever sent encrypted.

``smtp://`` says EHLO, then STARTTLS when the server offers it (verified against the system's CA
store, the host name checked), EHLO again, then AUTH; a server without STARTTLS gets no password
(``ClearTextRefused``), and without a password the mail goes in clear only when STARTTLS is not
offered. ``smtps://`` is TLS from the first byte (port 465). ``smtp+insecure://`` never starts
TLS and may log in in clear: for a relay on the same machine, named as such in the suite. The
connection and every reply go through the delivery's limits (``bounded_io``).
"""

from __future__ import annotations

import smtplib
import socket
import ssl
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

from .bounded_io import current_limits

DEFAULT_PORTS = {"smtp": 25, "smtps": 465, "smtp+insecure": 25}


class ClearTextRefused(Exception):
    """The server offers no encryption and the target has a password: nothing is sent."""


def send_mail(url: str, mail: EmailMessage, password: str | None) -> None:
    """Send ``mail`` through the server ``url`` names, logging in with ``password`` when given."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host, port = parts.hostname or "", parts.port or DEFAULT_PORTS[scheme]
    tls = ssl.create_default_context()  # the system's CAs (or SSL_CERT_FILE's), host name checked
    server = _SMTP(host, port, tls if scheme == "smtps" else None)
    try:
        server.ehlo_or_helo_if_needed()
        if scheme == "smtp" and server.has_extn("starttls"):
            server.starttls(context=tls)
            server.ehlo()
        elif scheme == "smtp" and password is not None:
            raise ClearTextRefused(
                f"the server at {host}:{port} offers no STARTTLS, and the password is never sent over a clear "
                "connection: use smtps:// for TLS from the start, or smtp+insecure:// for a relay on this machine"
            )
        if password is not None:
            server.login(unquote(parts.username or mail["From"]), password)
        server.send_message(mail)
        server.quit()
    finally:
        server.close()


class _SMTP(smtplib.SMTP):
    """smtplib's client with its connection opened, and its replies read, through the delivery's limits."""

    def __init__(self, host: str, port: int, implicit_tls: ssl.SSLContext | None) -> None:
        self._implicit_tls = implicit_tls
        try:  # connects, and keeps the host for STARTTLS's certificate check
            super().__init__(host, port, timeout=current_limits().seconds)
        except BaseException:
            self.close()
            raise

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = current_limits().connect((host, port))
        return sock if self._implicit_tls is None else self._implicit_tls.wrap_socket(sock, server_hostname=host)

    def getreply(self) -> tuple[int, bytes]:
        if self.file is None and self.sock is not None:  # a new connection, or one just wrapped in TLS
            self.file = current_limits().reader(self.sock)
        return super().getreply()
