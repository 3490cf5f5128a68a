"""Plan -> DuckDB SQL text: relations, scalars, and the quoting every piece of user text goes through."""
