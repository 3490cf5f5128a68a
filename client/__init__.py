"""gryph client: the Python API, the CLI, suites, and the Spark Connect engine.

from gryph.client import run
result = run("examples/users.dq")              # DuckDB, embedded
result = run(suite_text, frames={"users": df})  # rules over in-memory frames
result.metrics["contact"]["incomplete"]
for batch in stream("clicks.dq", available_now=True):  # a suite of kafka/folder sources, a batch at a time
    batch.stream["tmst"], batch.metrics
"""

from .results.run_result import RunResult
from .run import runner
from .run.runner import explain, load_suite, run


def validate(source, engine="duckdb", *, frames=None, remote=None, variables=None, server=None):
    """Parse and check a suite against its sources' schemas without scanning data (see
    ``gryph.client.run.runner.validate``); a suite of streams against a batch of them."""
    return runner.validate(
        source,
        engine,
        frames=frames,
        remote=remote,
        bound_streams=_validation_batch,
        variables=variables,
        server=server,
    )


def _validation_batch(suite):
    """A stream suite bounded to a batch validation reads; DuckDB (the state's) loads only here."""
    from .streaming.batch_inputs import validation_batch

    return validation_batch(suite)


def stream(*args, **kwargs):
    """A suite's kafka and folder sources a micro-batch at a time: each committed batch's result
    (see ``gryph.client.streaming.stream_runner.stream``). Its state file is DuckDB's: imported
    here, so that a Spark run's client never loads DuckDB."""
    from .streaming.stream_runner import stream as batches

    return batches(*args, **kwargs)


__all__ = ["RunResult", "explain", "load_suite", "run", "stream", "validate"]
