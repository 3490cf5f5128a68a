"""gryph local backend: runs plans on embedded DuckDB (``engine.DuckDBEngine``). Importing the
package loads nothing: a stream on Spark reads Kafka through ``sources.kafka`` without DuckDB's engine."""
