import sys

from lcsm_serving.paper_lab.cli import main

sys.exit(main())
