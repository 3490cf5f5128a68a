"""`gryph spark status|stop` on a state file whose server is gone: stale, removed, read as no server
(client/spark/session/warm_server.py). The live server's start, use and stop: tests/spark/test_kept_server.py."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.gryph_cli import gryph


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    child.wait()
    return child.pid  # its group ended with it


def _state(cache, text: str):
    state = cache / "spark-server" / "server.json"
    state.parent.mkdir(parents=True)
    state.write_text(text, encoding="utf-8")
    return state


def test_a_state_file_of_a_gone_server_is_stale(tmp_path):
    server = {"pid": _dead_pid(), "port": 1, "url": "sc://127.0.0.1:1", "spark_version": "4.1.1", "folder": "x"}
    state = _state(tmp_path, json.dumps(server))
    done = gryph("spark", "status", env={"GRYPH_CACHE_DIR": str(tmp_path)})
    assert (done.returncode, done.stdout) == (1, "no local Spark server is running (`gryph spark start` starts one)\n")
    assert not state.exists()


def test_a_damaged_state_file_is_removed_and_stop_has_nothing_to_stop(tmp_path):
    state = _state(tmp_path, '{"pid": 12, "po')
    done = gryph("spark", "stop", env={"GRYPH_CACHE_DIR": str(tmp_path)})
    assert (done.returncode, done.stdout, done.stderr) == (0, "no local Spark server was running\n", "")
    assert not state.exists()


def test_an_unknown_action_is_refused_with_the_choices(tmp_path):
    done = gryph("spark", "restart", env={"GRYPH_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 2
    assert "choose from 'start', 'status', 'stop'" in done.stderr
