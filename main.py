"""Start gpuviz from a checkout: `python main.py [COMMAND ...]` is the same as `gpuviz [COMMAND ...]`."""

import sys

from gpuviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
