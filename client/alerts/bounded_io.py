"""One delivery's limits, whatever the peer does: one total deadline, and at most 64 KiB read.

A socket timeout bounds each read, not a delivery: a peer trickling a byte or a ``220-`` line
every 2 s never trips it. So a delivery runs in a worker thread of its own, and its sockets are
registered as they are opened (``connect``); at the deadline the caller shuts them down, which
wakes any read, write or TLS handshake waiting on them, and reports the deadline. A worker still
waiting on the host name resolver (which nothing can interrupt) is left to end alone, as a daemon
thread. Everything the worker reads goes through ``reader``, which stops at ``MAX_ANSWER_BYTES``.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import threading
from collections.abc import Callable
from contextvars import ContextVar

from gryph.compiler.support.worker_threads import DeadlinePassed, within_deadline

MAX_ANSWER_BYTES = 64 * 1024


class LimitExceeded(Exception):
    """A delivery passed its deadline, or its peer answered more than ``MAX_ANSWER_BYTES``."""


class DeliveryLimits:
    """The deadline and read budget of one delivery, and the sockets it opened."""

    def __init__(self, seconds: float, max_bytes: int = MAX_ANSWER_BYTES) -> None:
        self.seconds = seconds
        self.max_bytes = max_bytes
        self._read = 0
        self._watched: list[socket.socket] = []  # duplicates of the delivery's sockets, to shut them down
        self._lock = threading.Lock()
        self._expired = False

    def connect(self, address: tuple[str, int]) -> socket.socket:
        """A TCP connection to ``address`` (bounded by the deadline), watched from now on."""
        sock = socket.create_connection(address, timeout=self.seconds)
        with self._lock:
            if self._expired:  # the caller gave up while this one was being opened
                sock.close()
                raise LimitExceeded(self.deadline_passed())
            # shutdown acts on the connection, not the descriptor: a duplicate reaches the same
            # connection after TLS has wrapped (and detached) the original socket object
            self._watched.append(socket.socket(fileno=os.dup(sock.fileno())))
        return sock

    def reader(self, sock: socket.socket) -> io.BufferedReader:
        """A file reading ``sock`` that refuses to read beyond the delivery's budget."""
        return io.BufferedReader(_Budgeted(sock.makefile("rb", buffering=0), self))

    def allowance(self, wanted: int) -> int:
        """How much of ``wanted`` may be read now; ``LimitExceeded`` once the budget is spent."""
        left = self.max_bytes - self._read
        if left <= 0:
            raise LimitExceeded(f"the answer is longer than {self.max_bytes // 1024} KiB: not read further")
        return min(wanted, left)

    def count(self, read: int) -> None:
        self._read += read

    def deadline_passed(self) -> str:
        return f"no complete exchange within the {self.seconds:g} s deadline"

    def expire(self) -> None:
        """Shut down every socket of the delivery: whatever waits on them wakes up at once."""
        with self._lock:
            self._expired = True
            for sock in self._watched:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self.close()

    def close(self) -> None:
        with self._lock:
            for sock in self._watched:
                sock.close()
            self._watched.clear()


_current: ContextVar[DeliveryLimits] = ContextVar("delivery_limits")


def current_limits() -> DeliveryLimits:
    """The limits of the delivery running in this thread (see ``run_within``)."""
    return _current.get()


def run_within(limits: DeliveryLimits, delivery: Callable[[], None]) -> None:
    """Run ``delivery`` in a worker thread under ``limits``: its own exception is raised here, and
    ``LimitExceeded`` when the deadline passes first."""

    def work() -> None:
        _current.set(limits)
        delivery()

    try:
        within_deadline(limits.seconds, work, "gryph-alert")
    except DeadlinePassed:
        limits.expire()  # wakes the worker's reads and writes
        raise LimitExceeded(limits.deadline_passed()) from None
    except TimeoutError:  # a socket's own timeout is the whole deadline too
        raise LimitExceeded(limits.deadline_passed()) from None
    finally:
        limits.close()


class _Budgeted(io.RawIOBase):
    """A socket's raw reads, each cut to what the delivery's budget still allows."""

    def __init__(self, raw: io.RawIOBase, limits: DeliveryLimits) -> None:
        self._raw = raw
        self._limits = limits

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        view = memoryview(buffer)
        read = self._raw.readinto(view[: self._limits.allowance(len(view))]) or 0
        self._limits.count(read)
        return read

    def close(self) -> None:
        self._raw.close()
        super().close()
