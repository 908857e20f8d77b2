"""`python -m gpuviz` is the `gpuviz` command."""

import sys

from gpuviz.cli import main

sys.exit(main())
