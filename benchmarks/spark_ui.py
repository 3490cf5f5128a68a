"""Counting what Spark did during a run, from the local server's UI REST API.

Jobs come from ``/api/v1/applications/<id>/jobs``; file scans from the SQL executions
(``/sql?details=true&planDescription=true``): every ``Scan parquet`` operator of an executed
plan names the files it read (``Location: ... [file:...]``), so scans are counted per source.
Reused exchanges and cached relations add no scan operator, so they are not counted twice.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request

_LOCATION = re.compile(r"Location: \w+ \[([^\]]*)\]")


def _get(url: str):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.load(response)


class SparkUI:
    """The REST API of one Spark application (the local Connect server's)."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}/api/v1"
        apps = _get(f"{self.base}/applications")
        self.app = apps[0]["id"]

    def _jobs(self) -> set[int]:
        return {job["jobId"] for job in _get(f"{self.base}/applications/{self.app}/jobs")}

    def _executions(self) -> list[dict]:
        return _get(f"{self.base}/applications/{self.app}/sql?details=true&planDescription=true&offset=0&length=100000")

    def snapshot(self) -> tuple[set[int], set[int]]:
        return self._jobs(), {e["id"] for e in self._executions()}

    def since(self, before: tuple[set[int], set[int]], settle: float = 1.0) -> dict:
        """Jobs and file scans (per file name) since ``before``."""
        time.sleep(settle)  # the listener updates the store asynchronously
        jobs = self._jobs() - before[0]
        scans: dict[str, int] = {}
        for execution in self._executions():
            if execution["id"] in before[1]:
                continue
            for name in scanned_files(execution.get("planDescription", "")):
                scans[name] = scans.get(name, 0) + 1
        return {"jobs": len(jobs), "scans": scans}


def scanned_files(plan: str) -> list[str]:
    """The file (last path part) of every parquet scan operator of an executed plan.

    With adaptive execution the text holds the final and the initial plan; only the final
    plan's operators ran.
    """
    tree, _, details = plan.partition("\n\n")
    if "== Final Plan ==" in tree:
        tree = tree.split("== Final Plan ==", 1)[1].split("== Initial Plan ==", 1)[0]
    ids = re.findall(r"Scan parquet\s*[^\s(]*\s*\((\d+)\)", tree)
    location = {}
    for block in details.split("\n\n"):
        head = re.match(r"\s*\((\d+)\) Scan parquet", block)
        if head:
            match = _LOCATION.search(block)
            location[head.group(1)] = match.group(1).split(", ")[0].rsplit("/", 1)[-1] if match else "?"
    return [location.get(i, "?") for i in ids]
