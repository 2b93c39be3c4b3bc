"""``python -m showctl``: the command line."""

import sys

from showctl.cli import main

if __name__ == "__main__":
    sys.exit(main())
