"""A run's result document and the files written from it (whole or not at all)."""
