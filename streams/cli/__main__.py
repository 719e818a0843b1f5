"""`python -m streams.cli`: the `multiqa` command."""

import sys

from streams.cli import main

sys.exit(main())
