"""Start gpuviz from a checkout: `python main.py` opens the app; `python main.py COMMAND ...` is the CLI."""

import sys

from gpuviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
