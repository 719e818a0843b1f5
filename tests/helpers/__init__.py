"""Helpers every test area shares, one home each (import the module you need):

- `tests.helpers.drafts`: `make_draft`, the one draft builder.
- `tests.helpers.ports`: `free_port`, `free_ports`, `closed_port_url`.
- `tests.helpers.http`: the fake-HTTP server kit (a real threaded HTTP/1.1 server on 127.0.0.x
  whose replies a test scripts), so the real client code runs against real sockets.
- `tests.helpers.postgres`: a throwaway PostgreSQL server a test may stop and restart, started by
  the dev launcher's own code (streams.devstack.postgres).

Per-area fixtures stay in tests/<area>/conftest.py; what two areas use lives here.
"""
