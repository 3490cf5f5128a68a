"""Alerts against peers that misbehave, all real servers on free loopback ports: aiosmtpd with
STARTTLS and implicit TLS (certificates made here by a test CA that only these tests trust, through
the standard SSL_CERT_FILE), an HTTP server that redirects, servers that trickle and flood, and
Slack/Teams payloads carrying markup from the data. A password never crosses a clear connection,
a token never follows a redirect, a delivery never outlives its deadline nor reads past 64 KiB."""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from gryph.client.alerts.bounded_io import MAX_ANSWER_BYTES, DeliveryLimits, LimitExceeded, run_within
from gryph.client.cli.main import main
from tests.client.test_alerts import BAD, Hook, Mailbox, _free_port, gryph_run, suite

PASSWORD = "mail-pass-123"
TOKEN = "s3cr3t-hook-token"
MAIL = "from=gryph@example.org&to=a@example.org"


@pytest.fixture
def hook():
    server = Hook()
    yield server
    server.close()


# --- certificates: a CA the tests trust, a server certificate for 127.0.0.1 and one for another name


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _server_certificate(folder: Path, name: str, alt_name: str) -> None:
    """``name``.pem/.key, signed by the test CA, valid for ``alt_name`` (``IP:...`` or ``DNS:...``)."""
    (folder / f"{name}.ext").write_text(
        f"subjectAltName={alt_name}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n"
        "extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=folder)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "2", "-out", f"{name}.pem", "-extfile", f"{name}.ext", cwd=folder)  # fmt: skip


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tls")
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=gryph test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
             cwd=folder)  # fmt: skip
    _server_certificate(folder, "loopback", "IP:127.0.0.1")
    _server_certificate(folder, "other", "DNS:mail.other.example")
    return folder


@pytest.fixture
def trusted_ca(certificates, monkeypatch) -> Path:
    """The test CA trusted through SSL_CERT_FILE, which Python's default context reads (and only then)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates / "ca.pem"))
    monkeypatch.setenv("SMTP_PASSWORD", PASSWORD)
    return certificates


def _server_context(certificates: Path, name: str) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificates / f"{name}.pem", certificates / f"{name}.key")
    return context


class MailServer:
    """aiosmtpd on a free port recording each AUTH with whether it came over TLS."""

    def __init__(self, **options) -> None:
        self.mailbox = Mailbox()
        self.logins: list[tuple[str, str, bool]] = []
        self.controller = Controller(
            self.mailbox, hostname="127.0.0.1", port=_free_port(), authenticator=self._login, **options
        )
        self.controller.start()
        self.port = self.controller.port

    def _login(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        over_tls = server.transport.get_extra_info("ssl_object") is not None
        self.logins.append((auth_data.login.decode(), auth_data.password.decode(), over_tls))
        return AuthResult(success=auth_data.password == PASSWORD.encode(), handled=False)

    def stop(self) -> None:
        self.controller.stop()


@pytest.fixture
def mail_servers():
    started: list[MailServer] = []

    def start(**options) -> MailServer:
        started.append(MailServer(**options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def _notify_mail(tmp_path: Path, url: str, extra: str = "") -> None:
    suite(tmp_path, f'notify "{url}" with password_env = "SMTP_PASSWORD"{extra}\n')


def test_starttls_before_auth_with_a_certificate_the_system_trusts(tmp_path, trusted_ca, mail_servers, capsys):
    server = mail_servers(tls_context=_server_context(trusted_ca, "loopback"), auth_require_tls=True)
    _notify_mail(tmp_path, f"smtp://dq@127.0.0.1:{server.port}/?{MAIL}")
    assert gryph_run(tmp_path, BAD) == 1, capsys.readouterr().err
    assert server.logins == [("dq", PASSWORD, True)]  # AUTH came over TLS
    [(sender, _, mail)] = server.mailbox.messages
    assert sender == "gryph@example.org" and mail["Subject"] == "gryph: suite orders failed"


def test_a_certificate_for_another_name_is_refused(tmp_path, trusted_ca, mail_servers, capsys):
    server = mail_servers(tls_context=_server_context(trusted_ca, "other"), auth_require_tls=True)
    _notify_mail(tmp_path, f"smtp://dq@127.0.0.1:{server.port}/?{MAIL}")
    assert gryph_run(tmp_path, BAD, "--no-history") == 1
    err = capsys.readouterr().err
    assert "ALERT_NOT_SENT" in err and "certificate is refused" in err and "127.0.0.1" in err
    assert server.logins == [] and server.mailbox.messages == []


def test_a_certificate_of_an_untrusted_ca_is_refused(tmp_path, certificates, mail_servers, monkeypatch, capsys):
    """Without SSL_CERT_FILE the test CA is no CA of the system's store: the same server is refused."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("SMTP_PASSWORD", PASSWORD)
    server = mail_servers(tls_context=_server_context(certificates, "loopback"), auth_require_tls=True)
    _notify_mail(tmp_path, f"smtp://dq@127.0.0.1:{server.port}/?{MAIL}")
    assert gryph_run(tmp_path, BAD, "--no-history") == 1
    assert "certificate is refused" in capsys.readouterr().err
    assert server.logins == []


def test_no_password_over_a_server_without_starttls(tmp_path, trusted_ca, mail_servers, capsys):
    server = mail_servers(auth_require_tls=False)  # offers AUTH in clear, and no STARTTLS
    _notify_mail(tmp_path, f"smtp://dq@127.0.0.1:{server.port}/?{MAIL}")
    assert gryph_run(tmp_path, BAD, "--no-history") == 1
    err = capsys.readouterr().err
    assert "ALERT_NOT_SENT" in err and "offers no STARTTLS" in err and "smtp+insecure://" in err
    assert server.logins == [] and server.mailbox.messages == []
    assert PASSWORD not in err


def test_smtp_insecure_logs_in_to_a_local_relay_in_clear(tmp_path, trusted_ca, mail_servers):
    server = mail_servers(auth_require_tls=False)
    _notify_mail(tmp_path, f"smtp+insecure://dq@127.0.0.1:{server.port}/?{MAIL}")
    assert gryph_run(tmp_path, BAD, "--no-history") == 1
    assert server.logins == [("dq", PASSWORD, False)] and len(server.mailbox.messages) == 1


def test_smtps_is_tls_from_the_first_byte(tmp_path, trusted_ca, mail_servers, monkeypatch, capsys):
    # aiosmtpd's auth_require_tls knows STARTTLS only: the login records whether TLS carried it
    server = mail_servers(ssl_context=_server_context(trusted_ca, "loopback"), auth_require_tls=False)
    _notify_mail(tmp_path, f"smtps://dq@127.0.0.1:{server.port}/?{MAIL}")
    assert gryph_run(tmp_path, BAD, "--no-history") == 1, capsys.readouterr().err
    assert server.logins == [("dq", PASSWORD, True)] and len(server.mailbox.messages) == 1
    # a refused login over TLS: a warning naming the server's answer, never the password
    capsys.readouterr()
    wrong = "wrong-pass-456"
    monkeypatch.setenv("SMTP_PASSWORD", wrong)
    assert gryph_run(tmp_path, BAD, "--no-history") == 1
    err = capsys.readouterr().err
    assert "SMTP 535" in err and wrong not in err


@pytest.mark.parametrize(("name", "delivered"), [("loopback", True), ("other", False)])
def test_an_https_webhook_verifies_the_certificate_and_its_name(tmp_path, trusted_ca, hook, capsys, name, delivered):
    hook.server.socket = _server_context(trusted_ca, name).wrap_socket(hook.server.socket, server_side=True)
    url = hook.url.replace("http://", "https://")
    suite(tmp_path, f'notify "{url}"\n', warn=True)
    assert gryph_run(tmp_path, BAD, "--no-history") == (0 if delivered else 5)
    err = capsys.readouterr().err
    assert len(hook.received) == (1 if delivered else 0)
    if not delivered:
        assert "certificate is refused: IP address mismatch" in err


def test_smtps_to_a_port_without_tls_names_the_handshake(tmp_path, trusted_ca, mail_servers, capsys):
    server = mail_servers(auth_require_tls=False)
    _notify_mail(tmp_path, f"smtps://dq@127.0.0.1:{server.port}/?{MAIL}")
    assert gryph_run(tmp_path, BAD, "--no-history") == 1
    assert "the TLS handshake failed" in capsys.readouterr().err
    assert server.logins == [] and server.mailbox.messages == []


# --- raw servers that answer what a test says, how slowly it says


class RawServer:
    """A TCP server on a free loopback port: each connection is handed to ``answer(conn)`` in a
    thread of its own; ``received`` keeps what each connection sent before the answer began."""

    def __init__(self, answer: Callable[[socket.socket], None]) -> None:
        self.answer = answer
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                self.answer(conn)
            except OSError:  # the client hung up: what these tests want
                pass

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def raw_server():
    servers: list[RawServer] = []

    def start(answer: Callable[[socket.socket], None]) -> RawServer:
        servers.append(RawServer(answer))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _read_request(conn: socket.socket) -> bytes:
    conn.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    lengths = [line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")]
    length = int(lengths[0]) if lengths else 0  # a CONNECT has no body
    while len(body) < length:
        body += conn.recv(65536)
    return data


def _trickle(conn: socket.socket, first: bytes, line: bytes, every: float, until: float = 30) -> None:
    conn.sendall(first)
    ends = time.monotonic() + until
    while time.monotonic() < ends:
        time.sleep(every)
        conn.sendall(line)


def _timed_run(tmp_path: Path, notify: str) -> tuple[int, float]:
    suite(tmp_path, notify, warn=True)
    started = time.monotonic()
    code = gryph_run(tmp_path, BAD, "--no-history")
    return code, time.monotonic() - started


def test_a_redirect_is_not_followed_and_the_token_stays(tmp_path, raw_server, hook, monkeypatch, capsys):
    """A answers 302 to B: B never hears of the alert, nor of the token; the delivery failed."""
    requests: list[bytes] = []

    def redirect(conn: socket.socket) -> None:
        requests.append(_read_request(conn))
        conn.sendall(f"HTTP/1.1 302 Found\r\nLocation: http://localhost:{port_b}/stolen\r\n"
                     "Content-Length: 0\r\n\r\n".encode())  # fmt: skip

    port_b = int(hook.url.split(":")[2].split("/")[0])
    server_a = raw_server(redirect)
    monkeypatch.setenv("HOOK_TOKEN", TOKEN)
    suite(tmp_path, f'notify "http://127.0.0.1:{server_a.port}/hook" with token_env = "HOOK_TOKEN"\n', warn=True)
    assert gryph_run(tmp_path, BAD, "--no-history") == 5
    err = capsys.readouterr().err
    assert "ALERT_NOT_SENT" in err and "HTTP 302 Found" in err and "redirect to host localhost" in err
    assert "/stolen" not in err and TOKEN not in err
    [request] = requests
    assert request.startswith(b"POST /hook HTTP/1.1") and f"Bearer {TOKEN}".encode() in request
    assert hook.received == []


@pytest.mark.parametrize(
    ("first", "line"),
    [
        (b"HTTP/1.1 200 OK\r\n", b"X-Slow: 1\r\n"),  # headers, a line at a time
        (b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/1.1 100 Continue\r\n\r\n"),  # interim answers, forever
        (b"HTTP/1.1 200 O", b"K"),  # the status line, a byte at a time
    ],
    ids=["header-lines", "interim-answers", "status-line"],
)
def test_a_trickling_webhook_is_cut_at_the_deadline(tmp_path, raw_server, capsys, first, line):
    server = raw_server(lambda conn: (_read_request(conn), _trickle(conn, first, line, every=0.2)))
    code, took = _timed_run(tmp_path, f'notify "http://127.0.0.1:{server.port}/x" with timeout = 1.5\n')
    assert code == 5 and 1.5 <= took < 4, took
    assert "within the 1.5 s deadline" in capsys.readouterr().err


def test_a_trickling_tls_handshake_is_cut_at_the_deadline(tmp_path, raw_server, capsys):
    """A TLS record header, then its body a byte at a time: the handshake itself is bounded."""
    server = raw_server(lambda conn: _trickle(conn, b"\x16\x03\x03\x00\x40", b"\x00", every=0.2))
    code, took = _timed_run(tmp_path, f'notify "https://127.0.0.1:{server.port}/x" with timeout = 1.5\n')
    assert code == 5 and 1.5 <= took < 4, took
    assert "within the 1.5 s deadline" in capsys.readouterr().err


def test_a_delivery_stuck_where_no_socket_can_wake_it_is_left_at_the_deadline():
    """As in a host name lookup, which nothing interrupts: the caller goes on at the deadline."""
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match=r"within the 0\.5 s deadline"):
        run_within(DeliveryLimits(0.5), lambda: time.sleep(5))
    assert 0.5 <= time.monotonic() - started < 1.5


def test_a_trickling_body_is_never_waited_for(tmp_path, raw_server, capsys):
    """The answer's status and headers decide; a body sent a byte at a time is not read at all."""
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
    server = raw_server(lambda conn: (_read_request(conn), _trickle(conn, head, b"x", every=0.2)))
    code, took = _timed_run(tmp_path, f'notify "http://127.0.0.1:{server.port}/x" with timeout = 1.5\n')
    assert code == 0 and took < 1.5, (took, capsys.readouterr().err)


def test_smtp_greeting_lines_every_moment_are_cut_at_the_deadline(tmp_path, raw_server, capsys):
    server = raw_server(lambda conn: _trickle(conn, b"220-hello\r\n", b"220-still here\r\n", every=0.2))
    code, took = _timed_run(tmp_path, f'notify "smtp://127.0.0.1:{server.port}/?{MAIL}" with timeout = 1.5\n')
    assert code == 5 and 1.5 <= took < 4, took
    assert "within the 1.5 s deadline" in capsys.readouterr().err


def test_the_default_deadline_is_ten_seconds(tmp_path, raw_server, capsys):
    server = raw_server(lambda conn: _trickle(conn, b"220-hello\r\n", b"220-still here\r\n", every=0.5))
    code, took = _timed_run(tmp_path, f'notify "smtp://127.0.0.1:{server.port}/?{MAIL}"\n')
    assert code == 5 and 10 <= took < 13, took
    assert "within the 10 s deadline" in capsys.readouterr().err


FLOODS = {
    "http-headers": (
        lambda conn: (_read_request(conn), _flood(conn, b"HTTP/1.1 200 OK\r\n", b"X-A: " + b"a" * 1000 + b"\r\n"))
    ),
    "http-status-line": (lambda conn: (_read_request(conn), _flood(conn, b"HTTP/1.1 200 ", b"K" * 1000))),
    "smtp-greeting": (lambda conn: _flood(conn, b"220-hello\r\n", b"220-" + b"a" * 500 + b"\r\n")),
}


def _flood(conn: socket.socket, first: bytes, line: bytes) -> None:
    conn.sendall(first)
    for _ in range(200_000):  # 100 MB and more: far beyond what may be read
        conn.sendall(line)


@pytest.mark.parametrize("kind", FLOODS)
def test_a_flooding_peer_is_read_no_further_than_64_kib(tmp_path, raw_server, capsys, kind):
    server = raw_server(FLOODS[kind])
    scheme = "smtp" if kind.startswith("smtp") else "http"
    url = f"{scheme}://127.0.0.1:{server.port}/" + (f"?{MAIL}" if scheme == "smtp" else "x")
    code, took = _timed_run(tmp_path, f'notify "{url}" with timeout = 5\n')
    err = capsys.readouterr().err
    assert code == 5 and took < 5, (took, err)
    assert "ALERT_NOT_SENT" in err
    if kind != "http-status-line":  # http.client refuses a status line over 64 KiB itself, first
        assert "longer than 64 KiB" in err


def test_the_reader_takes_at_most_64_kib_from_the_socket():
    """Counted at the other end: of 1 MB waiting, exactly 64 KiB left the socket."""
    ours, theirs = socket.socketpair()
    sent = b"x" * (1024 * 1024)
    threading.Thread(target=lambda: (theirs.sendall(sent), theirs.close()), daemon=True).start()
    reader = DeliveryLimits(5).reader(ours)
    with pytest.raises(LimitExceeded, match="longer than 64 KiB"):
        while reader.read(1000):
            pass
    reader.close()
    rest = b""
    while chunk := ours.recv(1 << 20):
        rest += chunk
    assert len(rest) == len(sent) - MAX_ANSWER_BYTES
    ours.close()


# --- a proxy the environment names


class ConnectProxy:
    """An HTTP proxy on a free port: CONNECT opens a tunnel to the target it names (or is
    answered with ``refuse``); any other request is answered 200 itself. ``heads`` keeps each
    request's head, ``carried`` every byte it carried through tunnels."""

    def __init__(self, raw_server, refuse: bytes | None = None) -> None:
        self.heads: list[bytes] = []
        self.carried = bytearray()
        self.refuse = refuse
        self.server = raw_server(self._serve)
        self.url = f"http://127.0.0.1:{self.server.port}"

    def _serve(self, conn: socket.socket) -> None:
        head = _read_request(conn)
        self.heads.append(head)
        if not head.startswith(b"CONNECT "):
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            return
        if self.refuse is not None:
            conn.sendall(self.refuse)
            return
        host, port = head.split(b" ")[1].decode().rsplit(":", 1)
        with socket.create_connection((host, int(port))) as upstream:
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            pump = threading.Thread(target=self._pump, args=(upstream, conn), daemon=True)
            pump.start()
            self._pump(conn, upstream)
            pump.join(5)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                self.carried += chunk
                sink.sendall(chunk)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


@pytest.fixture
def no_proxy_variables(monkeypatch):
    for name in ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_https_through_a_proxy_is_a_tunnel_the_proxy_cannot_read(tmp_path, trusted_ca, hook, raw_server,
                                                                  no_proxy_variables):  # fmt: skip
    hook.server.socket = _server_context(trusted_ca, "loopback").wrap_socket(hook.server.socket, server_side=True)
    proxy = ConnectProxy(raw_server)
    no_proxy_variables.setenv("https_proxy", proxy.url.replace("http://", "http://pxuser:px%20pass@"))
    no_proxy_variables.setenv("HOOK_TOKEN", TOKEN)
    url = hook.url.replace("http://", "https://")
    suite(tmp_path, f'notify "{url}" with token_env = "HOOK_TOKEN"\n', warn=True)
    assert gryph_run(tmp_path, BAD, "--no-history") == 0
    [received] = hook.received
    assert received["headers"]["Authorization"] == f"Bearer {TOKEN}"
    [head] = proxy.heads
    target = url.split("/")[2].encode()
    # by hand: base64 of "pxuser:px pass" is cHh1c2VyOnB4IHBhc3M=
    assert head.startswith(b"CONNECT " + target + b" HTTP/1.1\r\n") and b"Basic cHh1c2VyOnB4IHBhc3M=" in head
    assert TOKEN.encode() not in bytes(proxy.carried) and b"/hook/x" not in bytes(proxy.carried)


def test_plain_http_through_a_proxy_and_no_proxy(tmp_path, hook, raw_server, no_proxy_variables):
    proxy = ConnectProxy(raw_server)
    no_proxy_variables.setenv("http_proxy", proxy.url)
    suite(tmp_path, f'notify "{hook.url}"\n', warn=True)
    assert gryph_run(tmp_path, BAD, "--no-history") == 0  # the proxy answers 200 itself
    [head] = proxy.heads
    assert head.startswith(f"POST {hook.url} HTTP/1.1\r\n".encode()) and hook.received == []
    no_proxy_variables.setenv("no_proxy", "127.0.0.1")
    assert gryph_run(tmp_path, BAD, "--no-history") == 0
    assert len(proxy.heads) == 1 and len(hook.received) == 1  # straight to the target


def test_a_proxy_that_refuses_the_tunnel_is_named(tmp_path, raw_server, no_proxy_variables, capsys):
    proxy = ConnectProxy(raw_server, refuse=b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
    no_proxy_variables.setenv("https_proxy", proxy.url)
    suite(tmp_path, 'notify "https://hooks.example/x"\n', warn=True)
    assert gryph_run(tmp_path, BAD, "--no-history") == 5
    err = capsys.readouterr().err
    assert f"the proxy 127.0.0.1:{proxy.server.port} refused the tunnel: HTTP 407" in err


# --- markup from the data in Slack and Teams

HOSTILE = "<!channel> <https://evil.example/login|Open the gryph report> & co"


def test_values_from_the_data_are_text_in_slack_and_teams(tmp_path, hook):
    (tmp_path / "s.dq").write_text(
        "suite orders\n"
        'source t = csv("t.csv", schema = "id bigint, email string")\n'
        "measure top: select max(email) from t\n"
        'check "top is known": measures["top"] == "a@x"\n'
        "pass when all\n"
    )
    (tmp_path / "t.csv").write_text(f'id,email\n1,"{HOSTILE}"\n')
    args = ["run", str(tmp_path / "s.dq"), "--no-history", "--quiet"]
    assert main([*args, "--notify", f"slack:{hook.url}", "--notify", f"teams:{hook.url}"]) == 1
    slack, teams = (r["body"] for r in hook.received)
    shown = slack["blocks"][0]["text"]["text"]
    # by hand: & -> &amp; first, then < -> &lt; and > -> &gt;
    escaped = "&lt;!channel&gt; &lt;https://evil.example/login|Open the gryph report&gt; &amp; co"
    assert f'measures["top"] = {escaped}' in shown
    assert "<" not in shown and ">" not in shown
    [block] = [b for b in teams["attachments"][0]["content"]["body"] if "top is known" in json.dumps(b)]
    assert block == {
        "type": "RichTextBlock",
        "inlines": [
            {"type": "TextRun", "text": f'FAIL top is known: measures["top"] == "a@x" — measures["top"] = {HOSTILE}'}
        ],
    }
