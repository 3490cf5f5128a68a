"""Running a suite: the runner, the engine registry, refusals, progress, failing rows."""
