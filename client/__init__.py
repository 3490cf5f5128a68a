"""gryph client: the Python API, the CLI, suites, and the Spark Connect engine."""
