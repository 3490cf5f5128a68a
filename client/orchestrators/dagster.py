"""``gryph_asset_checks``: a suite's checks as Dagster asset checks of one asset. Each check of the
suite (and each schema statement) is one asset check, blocking unless it is a warning; one gryph
run judges them all after each materialization, and a last check, ``gryph_verdict``, holds the
run's verdict by its pass policy (with the checks its rules imply, such as a freshness rule's).

    from gryph.client.orchestrators.dagster import gryph_asset_checks
    defs = Definitions(assets=[users], asset_checks=gryph_asset_checks("checks/users.dq", asset=users))
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    AssetCheckSpec,
    Failure,
    MetadataValue,
    multi_asset_check,
)

from gryph.compiler.errors import GryphError

from ..results.run_result import to_json
from ..run import runner
from .task_runs import TaskOutputs, TaskRun, run_task

VERDICT_CHECK = "gryph_verdict"


def gryph_asset_checks(
    suite: str | Path,
    *,
    asset: Any,
    engine: str = "duckdb",
    remote: str | None = None,
    history: str | Path | None = None,
    data_time: str | None = None,
    variables: Mapping[str, str] | None = None,
    notify: Sequence[str] = (),
    outputs: TaskOutputs | None = None,
) -> list[AssetChecksDefinition]:
    """The asset checks of ``suite`` on ``asset`` (an asset, its key or a key's string), run by one
    gryph run; its arguments are ``GryphOperator``'s. A run that broke fails the checks' step."""
    task = TaskRun(
        suite,
        engine=engine,
        remote=remote,
        history=history,
        variables=dict(variables or {}),
        outputs=outputs or TaskOutputs(),
        notify=tuple(notify),
    )
    loaded = runner.load_suite(suite, variables=task.variables)
    named = _dagster_names([*loaded.checks, *loaded.schemas])
    specs = [
        AssetCheckSpec(name, asset=asset, description=f"gryph check {check.name!r}", blocking=not check.warn)
        for name, check in named.items()
    ]
    specs.append(
        AssetCheckSpec(VERDICT_CHECK, asset=asset, description=f"suite {loaded.name!r}: {loaded.policy}", blocking=True)
    )
    by_check = {check.name: name for name, check in named.items()}
    asset_key = specs[0].asset_key

    @multi_asset_check(
        specs=specs, name=_dagster_name(f"gryph_{loaded.name}"), description=f"gryph suite {loaded.name!r}"
    )
    def gryph_checks(context) -> Iterator[AssetCheckResult]:
        try:
            result = run_task(task, data_time)
        except GryphError as error:
            raise Failure(description=f"gryph: {error}", metadata={"code": error.code}) from error
        document = json.loads(to_json(result.to_dict()))  # JSON's own types: NaN travels as "NaN"
        for check in document["check_details"]:
            if check["name"] in by_check:
                yield _check_result(asset_key, by_check[check["name"]], check)
        yield AssetCheckResult(
            asset_key=asset_key,
            check_name=VERDICT_CHECK,
            passed=document["pass"],
            severity=AssetCheckSeverity.ERROR,
            metadata={
                "policy": document["policy"],
                "checks": MetadataValue.json({c["name"]: c["status"] for c in document["check_details"]}),
                **({"data_time": document["data_time"]} if "data_time" in document else {}),
                **({"run_id": result.run_id} if result.run_id else {}),
            },
        )

    return [gryph_checks]


def _check_result(asset_key, name: str, check: dict) -> AssetCheckResult:
    """One check's outcome with what it read: its values, the bounds it set and its failing rows.
    A check that could not judge yet (SKIP, too little history) fails nothing, as in gryph."""
    metadata: dict[str, Any] = {
        "gryph_check": check["name"],
        "expression": check["expression"],
        "status": check["status"],
        "values": MetadataValue.json(check["values"]),
    }
    for key in ("bounds", "failing_rows"):
        if key in check:
            metadata[key] = MetadataValue.json(check[key])
    for key in ("error", "skipped"):
        if check.get(key):
            metadata[key] = check[key]
    return AssetCheckResult(
        asset_key=asset_key,
        check_name=name,
        passed=check["status"] in ("PASS", "SKIP"),
        severity=AssetCheckSeverity.WARN if check["status"] in ("WARN", "SKIP") else AssetCheckSeverity.ERROR,
        metadata=metadata,
    )


def _dagster_names(checks: Sequence[Any]) -> dict[str, Any]:
    """Each check under a name Dagster takes (letters, digits, _; accents dropped: "fünfzig users" is
    funfzig_users); two that come out alike are told apart by a number (a_b, a_b_2)."""
    named: dict[str, Any] = {}
    for check in checks:
        base = _dagster_name(check.name)
        name, n = base, 2
        while name in named or name == VERDICT_CHECK:
            name, n = f"{base}_{n}", n + 1
        named[name] = check
    return named


def _dagster_name(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    name = re.sub(r"[^A-Za-z0-9_]+", "_", ascii_text).strip("_").lower()
    return name if name and not name[0].isdigit() else f"check_{name}"
