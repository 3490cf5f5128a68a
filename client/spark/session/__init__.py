"""The Spark Connect session: connecting, a local server, its connectors, failures and outages."""
