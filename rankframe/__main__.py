"""``python -m rankframe`` runs the command line."""

import sys

from rankframe.cli import main

sys.exit(main())
