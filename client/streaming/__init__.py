"""Streams: a suite run one micro-batch at a time over Kafka topics and folders files arrive in."""
