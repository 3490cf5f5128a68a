"""An alert as an HTTP POST of JSON, to the address the suite names and nowhere else.

Redirects are never followed (a 3xx is a failed delivery naming the status and the host it
pointed to), so a bearer token never reaches another origin and a POST never turns into a GET.
HTTPS is verified against the system's CA store with the host name checked. A proxy the
environment names is used (``proxies.py``): HTTPS through a CONNECT tunnel, TLS end to end. The
connections and every read go through the delivery's limits (``bounded_io``): one deadline, 64 KiB
of answer, the proxy's included.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from urllib.parse import SplitResult, urljoin, urlsplit

from .bounded_io import current_limits
from .proxies import Proxy, proxy_for


class NotDelivered(Exception):
    """The target answered, but not with success."""


def post_json(url: str, body: bytes, token: str | None) -> None:
    """POST ``body`` to ``url``; ``NotDelivered`` unless the answer is a 2xx."""
    parts = urlsplit(url)
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "gryph", "Connection": "close"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    connection = _Connection(parts)
    if connection.proxy is not None and connection.tls is None:  # plain HTTP: the proxy forwards the request
        target = url
        if connection.proxy.authorization is not None:
            headers["Proxy-Authorization"] = connection.proxy.authorization
    else:
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()  # the status line and headers only: the body is never read
        status, reason, location = response.status, response.reason, response.getheader("Location")
    finally:
        connection.close()
    if 300 <= status < 400:
        raise NotDelivered(f"HTTP {status} {_short(reason)}: a redirect {_where(url, location)} is not followed")
    if not 200 <= status < 300:
        raise NotDelivered(f"HTTP {status} {_short(reason)}")


class _Connection(http.client.HTTPConnection):
    """An HTTP or HTTPS connection opened through the delivery's limits, its answer read through them."""

    def __init__(self, parts: SplitResult) -> None:
        tls = parts.scheme.lower() == "https"
        super().__init__(parts.hostname or "", parts.port or (443 if tls else 80), timeout=current_limits().seconds)
        self.default_port = 443 if tls else 80  # the Host header names a port only when it is not the default
        self.tls = ssl.create_default_context() if tls else None  # the system's CAs, host name checked
        self.proxy = proxy_for(parts.scheme.lower(), self.host)
        self.response_class = _Response

    def connect(self) -> None:
        limits = current_limits()
        if self.proxy is None:
            sock = limits.connect((self.host, self.port))
        else:
            sock = limits.connect((self.proxy.host, self.proxy.port))
            if self.tls is not None:
                _open_tunnel(sock, self.host, self.port, self.proxy)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host) if self.tls is not None else sock


def _open_tunnel(sock: socket.socket, host: str, port: int, proxy: Proxy) -> None:
    """Ask ``proxy`` (connected on ``sock``) for a tunnel to ``host``:``port``; ``NotDelivered`` if refused."""
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
    if proxy.authorization is not None:
        lines.append(f"Proxy-Authorization: {proxy.authorization}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
    answer = _Response(sock, method="CONNECT")
    try:
        answer.begin()  # the status line and headers; the proxy says nothing more until TLS starts
        status, reason = answer.status, answer.reason
    finally:
        answer.close()
    if status != 200:
        raise NotDelivered(f"the proxy {proxy} refused the tunnel: HTTP {status} {_short(reason)}")


class _Response(http.client.HTTPResponse):
    """A response whose bytes are counted against the delivery's 64 KiB."""

    def __init__(self, sock, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(sock, *args, **kwargs)
        self.fp.close()
        self.fp = current_limits().reader(sock)


def _where(url: str, location: str | None) -> str:
    """Where a redirect pointed, by host only: its path may carry a secret as well."""
    if location is None:
        return "without a Location"
    try:
        host = urlsplit(urljoin(url, location.strip())).hostname
    except ValueError:
        host = None
    return f"to host {_short(host)}" if host else "to an address without a host"


def _short(text: str | None) -> str:
    """Text from the peer, cut short: it is shown, not trusted."""
    text = text or ""
    return text if len(text) <= 80 else text[:80] + "..."
