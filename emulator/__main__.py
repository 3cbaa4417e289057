"""`python -m dmlemu`: the dmlemu command line."""
import sys

from dmlemu.tools.cli import main

sys.exit(main())
