"""gryph's benchmark harness: data generator, suite, Griffin-style steps, floors, peers, runner."""
