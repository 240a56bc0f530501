"""`python -m lcsm_explorer COMMAND`: the same as the `lcsm-explorer` command."""
import sys

from lcsm_explorer.cli import main

sys.exit(main())
