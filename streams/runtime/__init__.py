"""The stream runtime: the Faust app, one agent per reviewer, the aggregator and its table
entry, dead letters, the sinks (PostgreSQL), tracing, topics, serde and configuration;
`multiqa worker` (streams.cli.worker) runs it; it never imports the command line."""
