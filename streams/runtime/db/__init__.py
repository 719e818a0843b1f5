"""PostgreSQL access shared by the stream's sinks, the settings service and the CLI.

`migrate(pool)` applies the numbered SQL files in `migrations/` once each, in order, under an
advisory lock (so concurrent workers starting together do not race), recording them in
`schema_migrations`.
"""

from streams.runtime.db._migrate import (
    MigrationError,
    applied_migrations,
    available_migrations,
    migrate,
)
from streams.runtime.db._pool import create_pool

__all__ = [
    "MigrationError",
    "applied_migrations",
    "available_migrations",
    "create_pool",
    "migrate",
]
