"""What the lineage tests share: the events validated against OpenLineage's JSON schemas as kept in
spec/ (each event against the RunEvent schema, each facet against the schema its ``_schemaURL``
names), a local HTTP collector, and a suite over a CSV whose metrics are worked out by hand."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SPEC = Path(__file__).parent / "spec"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def _registry() -> Registry:
    documents = [json.loads(path.read_text(encoding="utf-8")) for path in SPEC.rglob("*.json")]
    return Registry().with_resources((doc["$id"], Resource.from_contents(doc)) for doc in documents)


REGISTRY = _registry()


def validate(event: dict) -> None:
    """``event`` is a RunEvent of the kept spec, and each facet is of the schema it names (a facet
    of a version not kept fails: the spec files are the client's)."""
    Draft202012Validator(
        {"$ref": RUN_EVENT}, registry=REGISTRY, format_checker=Draft202012Validator.FORMAT_CHECKER
    ).validate(event)
    for facet in _facets(event):
        url = facet["_schemaURL"]
        assert url.split("#")[0] in REGISTRY, f"{url} is not among the kept spec files"
        Draft202012Validator({"$ref": url}, registry=REGISTRY).validate(facet)


def _facets(event: dict) -> list[dict]:
    groups = [event["run"].get("facets", {}), event["job"].get("facets", {})]
    for dataset in event.get("inputs", []):
        groups += [dataset.get("facets", {}), dataset.get("inputFacets", {})]
    return [facet for group in groups for facet in group.values()]


class Collector:
    """An OpenLineage collector on a free loopback port: keeps each POSTed event (as Marquez's
    /api/v1/lineage would) and answers 201; with ``silent`` it accepts and never answers. Marquez
    itself cannot be had here: Maven Central has no Marquez server (``mvn dependency:get
    -Dartifact=io.github.marquezproject:marquez-api:0.51.1``: "Couldn't download artifact")."""

    def __init__(self, silent: bool = False) -> None:
        self.events: list[dict] = []
        self.paths: list[str] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if silent:
                    time.sleep(30)
                    return
                collector.paths.append(self.path)
                collector.events.append(json.loads(body))
                self.send_response(201)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# 5 rows: one name NULL; ids 1, 2, 3, 3, 5 (4 distinct); scores 10, 20, NULL, 5.5, -3
PEOPLE_CSV = "id,name,score\n1,Ann,10\n2,,20\n3,Bob,\n3,Ann,5.5\n5,Émile,-3\n"
PEOPLE_SUITE = """suite people_daily
source people = csv("people.csv", schema = "id bigint, name string, score double")
completeness named on people: name
distinctness ids on people: id
profiling stats on people: count(*) as n, count(score) as scored, min(score) as low, max(score) as high,
    sum(score) as total, count(distinct name) as names
check "names complete": metrics["named"]["incomplete"] {op} 0
warn check "enough rows": metrics["named"]["total"] >= 10
"""


def people(folder: Path, op: str = "==") -> Path:
    """The people suite in ``folder``; ``op`` decides its blocking check (``==``: it fails, 1 NULL)."""
    (folder / "people.csv").write_text(PEOPLE_CSV, encoding="utf-8")
    suite = folder / "people.dq"
    suite.write_text(PEOPLE_SUITE.replace("{op}", op), encoding="utf-8")
    return suite


def read_events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
