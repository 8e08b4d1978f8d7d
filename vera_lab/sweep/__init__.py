"""Parameter sweeps: definitions, the runner, the results store and the recommendation."""

from vera_lab.sweep.config import (
    PRESETS,
    SweepConfig,
    SweepConfigError,
    SweepPoint,
    load_config,
    parse_config,
)
from vera_lab.sweep.recommend import recommend
from vera_lab.sweep.runner import SweepRun, run_sweep
from vera_lab.sweep.store import ResultsStore, load_results

__all__ = [
    "PRESETS",
    "ResultsStore",
    "SweepConfig",
    "SweepConfigError",
    "SweepPoint",
    "SweepRun",
    "load_config",
    "load_results",
    "parse_config",
    "recommend",
    "run_sweep",
]
