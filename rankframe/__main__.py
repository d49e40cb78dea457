"""``python -m rankframe`` runs the command line."""

import sys

from rankframe.cli.main import main

sys.exit(main())
