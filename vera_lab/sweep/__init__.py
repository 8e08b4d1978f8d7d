"""Parameter sweeps: definitions, the runner, the results store and the recommendation."""

from vera_lab.chunking.presets import PRESETS
from vera_lab.sweep.config import (
    Configuration,
    SweepConfig,
    SweepConfigError,
    load_config,
    parse_config,
)
from vera_lab.sweep.data import Sampling
from vera_lab.sweep.orchestrate import SweepRun, run_sweep
from vera_lab.sweep.recommend import recommend
from vera_lab.sweep.runner import SweepInterrupted
from vera_lab.sweep.store import DataChangedError, ResultsStore, StoreError, list_runs, load_results

__all__ = [
    "PRESETS",
    "DataChangedError",
    "ResultsStore",
    "Sampling",
    "StoreError",
    "SweepInterrupted",
    "SweepConfig",
    "SweepConfigError",
    "Configuration",
    "SweepRun",
    "load_config",
    "list_runs",
    "load_results",
    "parse_config",
    "recommend",
    "run_sweep",
]


def __getattr__(name: str):
    """``SweepPoint``, the old name of :class:`Configuration`, still imports, with a warning."""
    if name == "SweepPoint":
        from vera_lab.sweep import config

        return config.SweepPoint  # warns
    raise AttributeError(f"module 'vera_lab.sweep' has no attribute {name!r}")
