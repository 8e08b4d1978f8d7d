"""``python tests/slow_sweep.py vera-lab-args...``: the CLI with every evaluation slowed to 0.3 s.

The kill and signal tests start it as a real process and stop it mid-sweep.
"""

import sys
import time

import vera_lab.evaluation.stages as runner  # where a built configuration is evaluated
from vera_lab.cli import main

real = runner.evaluate


def slow(*args, **kwargs):
    time.sleep(0.3)
    return real(*args, **kwargs)


runner.evaluate = slow
sys.exit(main(sys.argv[1:]))
