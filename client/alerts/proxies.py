"""The HTTP proxy a webhook goes through: the one the environment names (``HTTPS_PROXY`` for
https://, ``HTTP_PROXY`` for http://, hosts in ``NO_PROXY`` reached directly), as urllib and curl
read them. Only http:// proxies are used; HTTPS reaches its target through a CONNECT tunnel, so
the proxy carries TLS it cannot read."""

from __future__ import annotations

import urllib.request
from base64 import b64encode
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit


@dataclass(frozen=True)
class Proxy:
    host: str
    port: int
    authorization: str | None  # the Proxy-Authorization header, from the proxy URL's user and password

    def __str__(self) -> str:  # messages name a proxy by host and port, never by its credentials
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def proxy_for(scheme: str, host: str) -> Proxy | None:
    """The proxy for a ``scheme`` URL to ``host``, or None to connect directly."""
    address = urllib.request.getproxies().get(scheme)
    if not address or urllib.request.proxy_bypass(host):
        return None
    parts = urlsplit(address if "://" in address else f"http://{address}")
    variable = f"{scheme.upper()}_PROXY"
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise ValueError(f"{variable} names no http://host:port proxy, the only kind alerts go through")
    try:
        port = parts.port or 80
    except ValueError:
        raise ValueError(f"{variable} names a proxy whose port is not a number from 1 to 65535") from None
    authorization = None
    if parts.username is not None:
        login = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + b64encode(login.encode()).decode("ascii")
    return Proxy(parts.hostname, port, authorization)
