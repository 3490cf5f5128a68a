"""Alerts on a real HTTP server and a real SMTP server (aiosmtpd), both started and stopped here:
one message per run when the verdict changes (failure, warning, recovery), its payload for
webhooks, Slack, Teams and e-mail, secrets from the environment never shown or stored, and
delivery failures as a warning with exit 5 that never changes the data verdict."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from gryph.client.cli.main import main
from gryph.client.store.history import HistoryStore

TOKEN = "s3cr3t-hook-token"

# t.csv's email column: "ok" data has no NULL, "bad" data one (measure nulls = 1)
GOOD, BAD = "id,email\n1,a@x\n2,b@x\n", "id,email\n1,a@x\n2,\n"


class Hook:
    """An HTTP server on a free loopback port that records each POST; ``status`` is its answer,
    ``delay`` how long it waits before answering."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.status = 200
        self.delay = 0.0
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                hook.received.append({"path": self.path, "headers": dict(self.headers), "body": json.loads(body)})
                time.sleep(hook.delay)
                self.send_response(hook.status)
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook/x"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def hooks_named(*names: str) -> Iterator[dict[str, Hook]]:
    """Recording servers by name, each closed when the block ends."""
    with contextlib.ExitStack() as closing:
        servers = {name: Hook() for name in names}
        for server in servers.values():
            closing.callback(server.close)
        yield servers


@pytest.fixture
def hook():
    with hooks_named("one") as servers:
        yield servers["one"]


class Mailbox:
    """aiosmtpd's handler: keeps each message, or refuses every recipient with ``refuse``."""

    def __init__(self) -> None:
        self.messages: list = []
        self.refuse = False

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.mail_from, envelope.rcpt_tos, message_from_bytes(envelope.content)))
        return "250 OK"


@pytest.fixture
def smtp():
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    mailbox.port = controller.port
    yield mailbox
    controller.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def suite(tmp_path: Path, notify: str = "", warn: bool = False) -> str:
    check = 'warn check "no nulls"' if warn else 'check "no nulls"'
    (tmp_path / "s.dq").write_text(
        "suite orders\n"
        'source t = csv("t.csv", schema = "id bigint, email string")\n'
        "measure nulls: select count(*) from t where email is null\n"
        f'{check}: measures["nulls"] == 0\n'
        f"{notify}"
        "pass when all\n"
    )
    return str(tmp_path / "s.dq")


def gryph_run(tmp_path: Path, data: str, *args: str) -> int:
    (tmp_path / "t.csv").write_text(data)
    return main(["run", str(tmp_path / "s.dq"), "--history", str(tmp_path / "h.duckdb"), "--quiet", *args])


def test_one_message_when_the_verdict_changes(tmp_path, hook, monkeypatch, capsys):
    monkeypatch.setenv("HOOK_TOKEN", TOKEN)
    suite(tmp_path, f'notify "{hook.url}" with token_env = "HOOK_TOKEN"\n')
    assert gryph_run(tmp_path, GOOD) == 0 and hook.received == []  # first run passed: nothing to say
    assert gryph_run(tmp_path, BAD) == 1
    [failure] = hook.received
    assert failure["path"] == "/hook/x" and failure["headers"]["Authorization"] == f"Bearer {TOKEN}"
    body = failure["body"]
    assert (body["event"], body["verdict"], body["suite"]) == ("failure", "fail", "orders")
    assert body["failed"] == [
        {"name": "no nulls", "expression": 'measures["nulls"] == 0', "values": {'measures["nulls"]': 1}}
    ]
    assert body["warnings"] == [] and "report" not in body
    assert gryph_run(tmp_path, BAD) == 1 and len(hook.received) == 1  # still failing: no second message
    assert gryph_run(tmp_path, GOOD, "--html", str(tmp_path / "r.html")) == 0
    recovery = hook.received[1]["body"]
    assert (recovery["event"], recovery["verdict"], recovery["failed"]) == ("recovery", "pass", [])
    assert recovery["report"] == str((tmp_path / "r.html").absolute())
    # the token is never shown nor stored
    out = capsys.readouterr()
    assert TOKEN not in out.out + out.err
    assert TOKEN not in (tmp_path / "h.duckdb").read_bytes().decode("latin-1")


def test_without_history_every_failure_alerts(tmp_path, hook):
    suite(tmp_path)
    for _ in range(2):
        (tmp_path / "t.csv").write_text(BAD)
        assert main(["run", str(tmp_path / "s.dq"), "--no-history", "--quiet", "--notify", hook.url]) == 1
    assert [r["body"]["event"] for r in hook.received] == ["failure", "failure"]


def test_slack_and_teams_payloads(tmp_path, hook):
    suite(tmp_path, warn=True)
    assert gryph_run(tmp_path, BAD, "--notify", f"slack:{hook.url}", "--notify", f"teams:{hook.url}") == 0
    slack, teams = (r["body"] for r in hook.received)
    lines = [
        "gryph: suite orders has warnings: passed (policy: all) — 1 of 1 check failed (a warning)",
        'WARN no nulls: measures["nulls"] == 0 — measures["nulls"] = 1',
    ]
    assert slack == {
        "text": "gryph: suite orders has warnings",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(lines)}}],
    }
    [attachment] = teams["attachments"]
    assert teams["type"] == "message" and attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.2"
    # plain TextRuns (never read as Markdown), the first line bold
    assert [run["text"] for block in card["body"] for run in block["inlines"]] == lines
    assert card["body"][0]["inlines"][0]["weight"] == "Bolder"


def test_email_over_smtp(tmp_path, smtp):
    suite(tmp_path)
    target = f"smtp://127.0.0.1:{smtp.port}/?from=gryph@example.org&to=a@example.org,b@example.org"
    assert gryph_run(tmp_path, BAD, "--notify", target) == 1
    [(sender, recipients, mail)] = smtp.messages
    assert sender == "gryph@example.org" and recipients == ["a@example.org", "b@example.org"]
    assert mail["Subject"] == "gryph: suite orders failed"
    assert 'FAIL no nulls: measures["nulls"] == 0 — measures["nulls"] = 1' in mail.get_payload(decode=True).decode()


def test_a_refusing_smtp_server_is_a_warning_with_exit_5(tmp_path, smtp, capsys):
    smtp.refuse = True
    suite(tmp_path, warn=True)
    target = f"smtp://127.0.0.1:{smtp.port}/?from=gryph@example.org&to=a@example.org"
    assert gryph_run(tmp_path, BAD, "--notify", target) == 5
    err = capsys.readouterr().err
    assert "ALERT_NOT_SENT" in err and "SMTP 550" in err and "the run passed" in err
    assert len(HistoryStore(tmp_path / "h.duckdb").runs("orders")) == 1  # stored all the same


def test_a_500_is_a_warning_and_the_verdict_stands(tmp_path, hook, capsys):
    hook.status = 500
    suite(tmp_path, warn=True)
    assert gryph_run(tmp_path, BAD, "--notify", hook.url) == 5
    err = capsys.readouterr().err
    assert "the alert to webhook 127.0.0.1:" in err and "HTTP 500" in err
    assert "/hook/x" not in err  # a webhook's path may be its secret: never shown
    suite(tmp_path)  # the same on a failed run: exit 1, the data verdict
    assert gryph_run(tmp_path, BAD, "--notify", hook.url) == 1
    assert "HTTP 500" in capsys.readouterr().err


def test_an_unreachable_or_slow_webhook_is_bounded(tmp_path, hook, capsys):
    suite(tmp_path, warn=True)
    closed = f"http://127.0.0.1:{_free_port()}/x"
    assert gryph_run(tmp_path, BAD, "--no-history", "--notify", closed) == 5
    assert "refused" in capsys.readouterr().err.lower()
    hook.delay = 3.0
    suite(tmp_path, f'notify "{hook.url}" with timeout = 0.5\n', warn=True)
    started = time.monotonic()
    assert gryph_run(tmp_path, BAD, "--no-history") == 5
    assert time.monotonic() - started < 2.5
    assert "no complete exchange within the 0.5 s deadline" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("notify", "option", "code", "line"),
    [
        ('notify "ftp://files.example/x"\n', None, "BAD_NOTIFY", 5),
        ("", "gopher://x", "BAD_NOTIFY", None),
        ('notify "smtp://mail.example:25/?from=a@x"\n', None, "BAD_NOTIFY", 5),
        ('notify "https://hooks.example/x" with token = "T"\n', None, "BAD_NOTIFY", 5),
        ('notify "https://hooks.example/x" with token_env = "GRYPH_TEST_UNSET"\n', None, "MISSING_CREDENTIAL", 5),
    ],
)
def test_bad_targets_are_refused_before_the_run(tmp_path, capsys, notify, option, code, line):
    suite(tmp_path, notify)
    args = ["--notify", option] if option else []
    assert gryph_run(tmp_path, BAD, *args) == 2
    err = capsys.readouterr().err
    assert f"error {code}" in err
    if line is not None:
        assert f"s.dq:{line}:1:" in err
    assert not (tmp_path / "h.duckdb").exists()  # refused before anything ran


def test_smtp_login_with_password_env(tmp_path, monkeypatch, capsys):
    """password_env logs in as the URL's user; the password reaches the server, not the output.
    (A relay without STARTTLS, named smtp+insecure://: test_alert_transport.py has TLS.)"""
    from aiosmtpd.smtp import AuthResult

    logins = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        logins.append((auth_data.login.decode(), auth_data.password.decode()))
        # handled=False: aiosmtpd answers a refusal with 535 itself
        return AuthResult(success=auth_data.password == b"mail-pass-123", handled=False)

    mailbox = Mailbox()
    controller = Controller(
        mailbox, hostname="127.0.0.1", port=_free_port(), authenticator=authenticator, auth_require_tls=False
    )
    controller.start()
    try:
        monkeypatch.setenv("SMTP_PASSWORD", "mail-pass-123")
        target = f"smtp+insecure://dq@127.0.0.1:{controller.port}/?from=gryph@example.org&to=a@example.org"
        suite(tmp_path, f'notify "{target}" with password_env = "SMTP_PASSWORD"\n')
        assert gryph_run(tmp_path, BAD) == 1
        assert logins == [("dq", "mail-pass-123")] and len(mailbox.messages) == 1
        monkeypatch.setenv("SMTP_PASSWORD", "wrong-pass-456")
        assert gryph_run(tmp_path, BAD, "--no-history") == 1  # refused login: a warning, the verdict stands
        err = capsys.readouterr().err
        assert "ALERT_NOT_SENT" in err and "SMTP 535" in err and "pass-" not in err
    finally:
        controller.stop()


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://hooks.slack.com/services/T0/B0/Hook Secret58", "a space at character 44"),
        ("slack:https://hooks.slack.com/services/T0/B0/Hook\tSecret58", "a space at character 44"),
        ("https://h:abc/Secret58", "the port is not a number from 1 to 65535"),
        ("https://h:99999/Secret58", "the port is not a number from 1 to 65535"),
        ("https://h:0/Secret58", "the port is not a number from 1 to 65535"),
        ("http://user:PwInUrl77@127.0.0.1:1/x", "holds a user name or password"),
        ("smtp://dq:PwInUrl77@mail.example/?from=a@x.org&to=b@x.org", "holds a password"),
        ("ftp://files.example/Secret58", "'ftp' is no alert target"),
        ("https:///Secret58", "names no host"),
        ("https://999.1.1.1/Secret58", "no IPv4 address"),
        ("https://[::1/Secret58", "no IPv6 address"),
        ("https://bad_host!/Secret58", "no host name"),
        ("https://hooks.example/é/Secret58", "U+00E9 at character 23"),
        ("smtp://mail.example/?from=a@x.org&to=b@x.org%0d%0aBcc:Secret58@evil.example", "to= holds something"),
        ("teams:https://x.webhook.office.com/webhookb2/Secret58%zz", "a % at character 48 that is not followed by"),
        ("slack:https://hooks.slack.com/services/T0/B0/Secret58%4", "a % at character 48 that is not followed by"),
        ("https://hooks.example/x?Secret58=%g1", "a % at character 34 that is not followed by two hex digits"),
        ("smtp://mail.example/?from=a@x.org&to=b%zz@x.org", "a % at character 39 that is not followed by"),
        ("teams:https://x.webhook.office.com/webhookb2/Secret58#frag", "a fragment (#...) at character 48"),
        ("https://hooks.example/Secret58#", "a fragment (#...) at character 31, which no delivery sends"),
        ("smtp://mail.example/?from=a@x.org&to=b@x.org#Secret58", "a fragment (#...) at character 45"),
    ],
)
def test_bad_urls_are_refused_at_validate_without_their_secrets(tmp_path, capsys, url, problem):
    """Each is BAD_NOTIFY at the notify line (exit 2), naming the URL by its scheme only: the path
    of a Slack or Teams webhook is its secret, and credentials never reach a resolver."""
    suite(tmp_path, f'notify "{url}"\n')
    assert main(["validate", str(tmp_path / "s.dq")]) == 2
    err = capsys.readouterr().err
    assert f"s.dq:5:1: error BAD_NOTIFY: notify {url.split(':')[0]}:...: " in err and problem in err, err
    assert "Secret58" not in err and "PwInUrl77" not in err


@pytest.mark.parametrize(
    ("url", "hint"),
    [
        (
            "teams:https://x.webhook.office.com/webhookb2/Secret58%zz",
            "a % starts an escape such as %2F; write a % itself as %25",
        ),
        ("teams:https://x.webhook.office.com/webhookb2/a#Secret58", "remove it, or write a # itself as %23"),
    ],
)
def test_a_bad_escape_or_a_fragment_says_how_to_write_it(tmp_path, capsys, url, hint):
    suite(tmp_path, f'notify "{url}"\n')
    assert main(["validate", str(tmp_path / "s.dq")]) == 2
    err = capsys.readouterr().err
    assert f"\n    near: teams:...\n    hint: {hint}\n" in err, err
    assert "Secret58" not in err


def test_a_good_url_and_its_timeout_validate(tmp_path, capsys):
    suite(tmp_path, 'notify "teams:https://x.webhook.office.com:8443/webhookb2/Sec%2Fret58?a=%41" with timeout = 2.5\n')
    assert main(["validate", str(tmp_path / "s.dq")]) == 0
    for timeout in ("0", "3601", '"10s"'):
        suite(tmp_path, f'notify "https://hooks.example/x" with timeout = {timeout}\n')
        assert main(["validate", str(tmp_path / "s.dq")]) == 2
        assert "BAD_NOTIFY" in capsys.readouterr().err
