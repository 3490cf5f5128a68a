"""Where a run's OpenLineage events go, and sending them without ever changing its verdict.

The target is ``--openlineage URL|FILE`` (an http(s) collector such as Marquez, or a file the
events are appended to, one JSON line each), else the client's own configuration:
``OPENLINEAGE_URL``, ``OPENLINEAGE_CONFIG`` (a YAML file naming any of its transports) or
``OPENLINEAGE__...`` variables. Without any, nothing is sent and the client is not even loaded.
Each event has one total deadline; one that is not delivered is a warning and
``LINEAGE_NOT_SENT`` (the exit code of an alert not sent, when the run passed)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from gryph.compiler.error_codes import ALERT_NOT_SENT
from gryph.compiler.errors import GryphError, InvalidInput, Location
from gryph.compiler.redaction import redact, register_secret
from gryph.compiler.support.worker_threads import within_deadline

from ..results.output_files import check_writable_path

if TYPE_CHECKING:
    from openlineage.client import OpenLineageClient
    from openlineage.client.event_v2 import RunEvent

DEADLINE_SECONDS = 10.0  # one event, whatever the collector does (its retries included)
_HTTP_TIMEOUT_SECONDS = 5.0
_CONFIGURED_BY = ("OPENLINEAGE_URL", "OPENLINEAGE_CONFIG")
_DEFAULT_ENDPOINT = "api/v1/lineage"


class LineageDeliveryError(GryphError):
    """An OpenLineage event that could not be delivered; the run's verdict stands."""

    exit_code = ALERT_NOT_SENT


@dataclass
class LineageTarget:
    """A configured client and how the target is named in messages (no credential in it)."""

    client: OpenLineageClient
    described: str
    failures: list[LineageDeliveryError] = field(default_factory=list)

    def emit(self, event: RunEvent) -> None:
        """Send ``event`` within the deadline; a failure is kept and warned about, never raised."""
        try:
            within_deadline(DEADLINE_SECONDS, lambda: self.client.emit(event), "gryph-lineage")
        except Exception as error:  # any transport's failure: the run's verdict must not change
            failure = LineageDeliveryError(
                "LINEAGE_NOT_SENT",
                f"the OpenLineage {event.eventType.value if event.eventType else ''} event to {self.described} "
                f"was not delivered: {redact(str(error) or type(error).__name__)}",
                location=Location("--openlineage"),
                text=self.described,
                hint="the run's verdict and history stand; check the collector (--openlineage, OPENLINEAGE_URL)",
            )
            self.failures.append(failure)
            print(f"warning: {failure}", file=sys.stderr)


def _client_from_environment(make: Callable[[], OpenLineageClient]) -> OpenLineageClient:
    """The client its environment configures. Given ``OPENLINEAGE_URL``, openlineage-python writes
    ``OPENLINEAGE__TRANSPORT__*`` variables into this process's environment; they are taken back
    once it is made, so that they neither reach the processes gryph starts nor read as a
    configuration of their own later in this one."""
    before = {name: value for name, value in os.environ.items() if name.startswith("OPENLINEAGE__")}
    try:
        return make()
    finally:
        for name in [name for name in os.environ if name.startswith("OPENLINEAGE__") and name not in before]:
            del os.environ[name]
        os.environ.update(before)


def lineage_target(option: str | None) -> LineageTarget | None:
    """The target ``--openlineage`` names, else the client's configuration from the environment;
    None when neither is given. A bad ``--openlineage`` is refused here, before the run."""
    configured = any(name in os.environ for name in _CONFIGURED_BY) or any(
        name.startswith("OPENLINEAGE__") for name in os.environ
    )
    if option is None and not configured:
        return None
    from openlineage.client import OpenLineageClient  # loaded only for a run that sends lineage

    logging.getLogger("openlineage").setLevel(logging.CRITICAL)  # a failure is gryph's one warning
    if api_key := os.environ.get("OPENLINEAGE_API_KEY"):
        register_secret(api_key)
    if option is None:
        url = os.environ.get("OPENLINEAGE_URL")
        described = (
            _described(url) if url else f"the transport of {os.environ.get('OPENLINEAGE_CONFIG', 'OPENLINEAGE__')}"
        )
        client = _client_from_environment(OpenLineageClient)
        if client.transport.kind == "console" and (client.config.transport or {}).get("type") != "console":
            # the client's fallback when its file is missing or unreadable: say so rather than send nothing
            raise InvalidInput(
                "BAD_OPTION",
                f"OPENLINEAGE_CONFIG {os.environ.get('OPENLINEAGE_CONFIG')!r} configures no OpenLineage transport",
                location=Location("OPENLINEAGE_CONFIG"),
                text=str(os.environ.get("OPENLINEAGE_CONFIG")),
                hint="name a readable YAML file with a transport: section (or unset OPENLINEAGE_CONFIG)",
            )
        return LineageTarget(client, described)
    transport, described = _transport(option)
    return LineageTarget(OpenLineageClient(config={"transport": transport}), described)


def _transport(option: str) -> tuple[dict, str]:
    parts = urlsplit(option)
    if parts.scheme in ("http", "https"):
        if not parts.hostname:
            raise InvalidInput(
                "BAD_OPTION",
                f"--openlineage {_described(option)}: the URL names no host",
                text=_described(option),
                hint="--openlineage http://localhost:5000 (Marquez) or a file: --openlineage events.jsonl",
            )
        register_secret(parts.password)
        base = urlunsplit(parts._replace(path="", query="", fragment=""))
        endpoint = parts.path.lstrip("/") or _DEFAULT_ENDPOINT
        transport = {"type": "http", "url": base, "endpoint": endpoint, "timeout": _HTTP_TIMEOUT_SECONDS}
        transport["retry"] = {"total": 2, "backoff_factor": 0.3, "status_forcelist": [500, 502, 503, 504]}
        return transport, _described(option)
    if "://" in option:
        raise InvalidInput(
            "BAD_OPTION",
            f"--openlineage takes an http(s) URL or a file, not {parts.scheme}://",
            text=_described(option),
            hint="other transports (Kafka, ...) are set in OPENLINEAGE_CONFIG, the client's YAML file",
        )
    check_writable_path("--openlineage", option)
    os.makedirs(os.path.dirname(os.path.abspath(option)), exist_ok=True)
    return {"type": "file", "log_file_path": option, "append": True}, option


def _described(url: str) -> str:
    """A collector's URL as messages show it: scheme, host and port (a path or user may be secret)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")
