"""``python -m vera_lab.cli``: the same as the ``vera-lab`` command."""

import sys

from vera_lab.cli.main import main

sys.exit(main())
