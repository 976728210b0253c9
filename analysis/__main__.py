import sys

from prscope.analysis.cli import main

sys.exit(main())
