"""Tests of gryph.client: the CLI, the runner, history, reports and the Spark API."""
