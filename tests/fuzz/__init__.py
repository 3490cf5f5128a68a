"""Mutation fuzzing of suites and configs: every input ends as a result or a clear error."""
