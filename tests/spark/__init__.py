"""Tests of the Spark Connect engine against a real local server."""
