"""multiqa's stream plumbing: the Faust app, aggregator, sinks, database, CLI. No review logic."""
