"""How a run's plan becomes few Spark jobs: sources read once, shared shuffles, one action, samples."""
