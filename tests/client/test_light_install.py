"""The base package (no extra) runs DuckDB suites: nothing on that path imports PySpark, pandas or
the test tools; the Spark engine without PySpark is a clear error. Each case runs in a process
where those packages cannot be imported, as in a `pip install gryph` without extras."""

from __future__ import annotations

import subprocess
import sys

import tomllib

from tests.support.gryph_cli import ROOT

OPTIONAL = ("pyspark", "pandas", "pytest", "hypothesis")
# None in sys.modules makes `import name` raise ImportError, as for a package not installed
WITHOUT_OPTIONAL = f"""
import sys
for name in {OPTIONAL!r}:
    sys.modules[name] = None
from gryph.client.cli.main import main
code = main(sys.argv[1:])
loaded = sorted({{m.split(".")[0] for m, module in sys.modules.items() if module is not None}} & set({OPTIONAL!r}))
print("loaded:", loaded, file=sys.stderr)
sys.exit(code)
"""


def _gryph_without_optional(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_OPTIONAL, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_duckdb_suites_run_without_the_optional_packages(tmp_path):
    seed = _gryph_without_optional("run", "examples/seed.dq", "--no-history")
    assert seed.returncode == 0, seed.stderr
    assert "verdict: passed (policy: always)" in seed.stdout and "loaded: []" in seed.stderr
    page = tmp_path / "r.html"
    users = _gryph_without_optional("run", "examples/users.dq", "--no-history", "--html", str(page))
    assert users.returncode == 0, users.stderr
    assert page.read_text().lstrip().lower().startswith("<!doctype html") and "loaded: []" in users.stderr


def test_the_spark_engine_without_pyspark_says_which_extra(tmp_path):
    for engine in (("--engine", "spark"), ("--remote", "local")):
        done = _gryph_without_optional("run", "examples/seed.dq", "--no-history", *engine)
        assert done.returncode == 3, done.stderr
        assert "error SPARK_MISSING: the Spark engine needs pyspark" in done.stderr
        assert 'hint: pip install "gryph[spark]"' in done.stderr and "internal error" not in done.stderr


def test_apt_installs_take_no_recommends():
    scripts = [ROOT / ".ci" / "bootstrap.sh", ROOT / ".ci" / "run", ROOT / "Makefile"]
    installs = [line.strip() for path in scripts for line in path.read_text().splitlines() if "apt-get install" in line]
    assert len(installs) >= 2, installs  # the test packages and make
    assert [line for line in installs if "--no-install-recommends" not in line] == []


def test_the_all_extra_is_every_engine_and_source_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    # anomaly (statsmodels, for holt_winters) is a check strategy, and openlineage, airflow and
    # dagster are integrations: none is an engine or a source
    integrations = {"anomaly", "openlineage", "airflow", "dagster"}
    wanted = sorted(set(extras) - {"all", "test", "dev", "bench"} - integrations)
    (listed,) = extras["all"]
    assert listed.startswith("gryph[") and sorted(listed[len("gryph[") : -1].split(",")) == wanted
    assert wanted == ["delta", "iceberg", "kafka", "mysql", "postgres", "spark"]
