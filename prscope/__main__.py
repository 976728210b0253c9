"""`python -m prscope`: the command-line interface."""

import sys

from prscope.analysis.cli import main

sys.exit(main())
