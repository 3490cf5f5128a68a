"""gryph client: the Python API, the CLI, suites, and the Spark Connect engine.

from gryph.client import run
result = run("examples/users.dq")              # DuckDB, embedded
result = run(suite_text, frames={"users": df})  # rules over in-memory frames
result.metrics["contact"]["incomplete"]
"""

from .run_result import RunResult
from .runner import explain, load_suite, run, validate

__all__ = ["RunResult", "explain", "load_suite", "run", "validate"]
