"""Kafka on the client: the consumer (consumer.py), a batch's messages read into DuckDB
(reader.py, parsed by arrow_json.py or values.py), and what a stream asks the broker between
batches (broker.py, the one module client/streaming imports)."""
