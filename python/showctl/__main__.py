"""``python -m showctl``: the command line."""

import sys

from showctl.cli import main

sys.exit(main())
