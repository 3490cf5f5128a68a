"""gryph client: the Python API, the CLI, suites, and the Spark Connect engine.

from gryph.client import run
result = run("examples/users.dq")              # DuckDB, embedded
result = run(suite_text, frames={"users": df})  # rules over in-memory frames
result.metrics["contact"]["incomplete"]
for batch in stream("clicks.dq", available_now=True):  # a suite of kafka/folder sources, a batch at a time
    batch.stream["tmst"], batch.metrics
"""

from .run_result import RunResult
from .runner import explain, load_suite, run, validate
from .streaming.stream_runner import stream

__all__ = ["RunResult", "explain", "load_suite", "run", "stream", "validate"]
