"""Griffin's env.json beside a job config: its Spark settings and its metric sinks."""
