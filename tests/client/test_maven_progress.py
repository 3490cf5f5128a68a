"""The connectors' first fetch shows its progress: Maven's download lines summed (maven_fetch.py)."""

from __future__ import annotations

import io
import sys

from gryph.client.spark.session.maven_fetch import Progress, run_maven

CENTRAL = "https://repo.maven.apache.org/maven2"


def _downloaded(size: str) -> str:
    return f"[INFO] Downloaded from central: {CENTRAL}/a/b/1.0/b-1.0.jar ({size} at 1.1 MB/s)\n"


def test_downloads_are_summed_and_other_lines_ignored():
    out = io.StringIO()
    progress = Progress("the connectors", out)
    for line in (
        f"[INFO] Downloading from central: {CENTRAL}/a/b/1.0/b-1.0.jar\n",  # started, not yet done
        _downloaded("3.9 kB"),
        _downloaded("1.5 MB"),
        _downloaded("512 B"),
        "[INFO] BUILD SUCCESS\n",
        "Downloaded from central: no size here\n",
    ):
        progress.line(line)
    assert progress.files == 3
    # 0.0039 MB + 1.5 MB + 0.000512 MB
    assert abs(progress.megabytes - 1.504412) < 1e-9
    progress.done()
    assert out.getvalue() == "fetching the connectors: 3 files, 1.5 MB, done\n"


def test_without_a_terminal_a_line_each_20_mb():
    out = io.StringIO()
    progress = Progress("Spark 4.1.1's connectors", out)
    for _ in range(5):  # 9 MB each: 9, 18, 27 (shown), 36, 45 (shown: 18 more than 27 is under 20)
        progress.line(_downloaded("9 MB"))
    assert out.getvalue().splitlines() == ["fetching Spark 4.1.1's connectors: 3 files, 27.0 MB"]


def test_nothing_downloaded_says_nothing():
    out = io.StringIO()
    progress = Progress("x", out)
    progress.line("[INFO] Copying b-1.0.jar to /tmp/x/b-1.0.jar\n")
    progress.done()
    assert out.getvalue() == ""


def test_run_maven_returns_the_exit_code_and_the_output():
    script = "print('[INFO] a'); print('[ERROR] b'); raise SystemExit(3)"
    code, output = run_maven([sys.executable, "-c", script], "x", timeout=60)
    assert (code, output) == (3, "[INFO] a\n[ERROR] b\n")


def test_run_maven_past_its_timeout_is_killed():
    code, _ = run_maven([sys.executable, "-c", "import time; time.sleep(30)"], "x", timeout=0.5)
    assert code is None
