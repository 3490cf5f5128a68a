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


def limited(command: list[str], *, umask: int | None = None, file_size: int | None = None) -> list[str]:
    """``command`` run under ``umask`` and a ``file_size`` limit in bytes (a write past it fails
    with "File too large", SIGXFSZ ignored), set by ``sh`` and ``prlimit`` before the command
    starts. Not a ``preexec_fn``: Python code between fork and exec in a test worker whose gRPC
    threads run (a Spark test before it) aborted the child (gRPC's fork handler: epoll_wait, bad
    file descriptor)."""
    steps = ['trap "" XFSZ'] if file_size is not None else []
    if umask is not None:
        steps.append(f"umask {umask:03o}")
    limit = f"prlimit --fsize={file_size}:{file_size} -- " if file_size is not None else ""
    return ["sh", "-c", " && ".join([*steps, f'exec {limit}"$@"']), "sh", *command]
