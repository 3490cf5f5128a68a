"""The benchmark harnesses still run and compute what gryph computes (no timing asserted)."""
