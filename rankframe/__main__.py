"""``python -m rankframe`` runs the command line."""

import sys

try:
    from rankframe.cli.main import command
except KeyboardInterrupt:  # Ctrl-C before the command line is loaded
    sys.exit(130)

sys.exit(command())
