"""Without the spark extra, every command that needs PySpark says which extra to install: no
traceback, no internal error (`gryph spark start` was one)."""

from __future__ import annotations

from tests.support.gryph_cli import ROOT, gryph


def _without_pyspark(tmp_path) -> dict[str, str]:
    """An environment in which ``import pyspark`` fails as it does where the extra is missing."""
    hidden = tmp_path / "hidden" / "pyspark"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError(\"No module named 'pyspark'\")\n", encoding="utf-8")
    return {"PYTHONPATH": str(tmp_path / "hidden"), "GRYPH_CACHE_DIR": str(tmp_path / "cache")}


def test_spark_start_and_a_local_run_name_the_extra(tmp_path):
    env = _without_pyspark(tmp_path)
    for args in (("spark", "start"), ("run", str(ROOT / "examples" / "users.dq"), "--remote", "local")):
        done = gryph(*args, env=env)
        assert done.returncode == 3, (args, done.stderr)
        assert "error SPARK_MISSING" in done.stderr and 'pip install "gryph[spark]"' in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert not (tmp_path / "cache" / "spark-server").exists()  # nothing was made for a server
