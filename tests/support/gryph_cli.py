"""The ``gryph`` command as a user runs it: a subprocess of the checkout's venv, from its root."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRYPH = ROOT / ".venv" / "bin" / "gryph"


def gryph(
    *args: str, cwd: Path = ROOT, timeout: float = 300, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run ``gryph ARGS`` (the module when the venv has no script), capturing its text output;
    ``env``: variables set for it beside this process's."""
    command = [str(GRYPH)] if GRYPH.exists() else [sys.executable, "-m", "gryph.client.cli.main"]
    environment = {**os.environ, **env} if env else None
    return subprocess.run(
        command + list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout, env=environment
    )


def with_umask(umask: int, command: list[str]) -> list[str]:
    """``command`` run under ``umask``, set by ``sh`` before it execs the command. Not a
    ``preexec_fn``: Python code between fork and exec in a test worker whose gRPC threads run
    (a Spark test before it) aborted the child (gRPC's fork handler: epoll_wait, bad file descriptor)."""
    return ["sh", "-c", f'umask {umask:03o} && exec "$@"', "sh", *command]
