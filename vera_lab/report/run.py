"""A stored sweep loaded for reporting (through its store), and how its configurations are named."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from vera_lab.evaluation import Configuration
from vera_lab.sweep.recommend import SCORER_PARAMS, ranked
from vera_lab.sweep.store import ResultsStore
from vera_lab.types import Dataset

_SHOWN_ALWAYS = ("param_strategy", "param_size", "param_overlap", "param_unit")
# A label shows the pipeline once, by its readable name, not again dimension by dimension.
_SHOWN_AS_PIPELINE = ("param_retriever", "param_rerank", "param_expand", "param_context")


@dataclass
class Run:
    """A stored sweep loaded for reporting."""

    store: ResultsStore
    manifest: dict[str, Any]
    table: pd.DataFrame
    recommendation: dict[str, Any]

    @property
    def metric(self) -> str:
        return self.recommendation.get("metric") or self.manifest["config"]["metric"]

    def dataset(self) -> Dataset:
        """The dataset the sweep ran on, with its sampling applied."""
        return self.store.dataset()

    def point(self, config_id: str) -> Configuration:
        return self.store.point(config_id)

    @property
    def final(self) -> pd.DataFrame:
        return ranked(self.table, self.metric, self.manifest.get("final_config_ids"))

    def compared(self, top: int = 3) -> pd.DataFrame:
        """The configs worth showing side by side.

        The recommended one, the best by the metric, the best dense choice (when a pipeline won), the
        seed presets and the ``top`` best.
        """
        final, rec = self.final, self.recommendation
        keep = {rec.get("config_id"), rec.get("best_by_metric", {}).get("config_id"),
                (rec.get("dense_rival") or {}).get("config_id")}  # fmt: skip
        shown = final[final.config_id.isin(keep) | (final.preset.fillna("") != "")]
        return pd.concat([shown, final.head(top)]).drop_duplicates("config_id")

    @functools.cached_property
    def varying(self) -> tuple[str, ...]:
        """The ``param_*`` columns that take more than one value among the final configs."""
        final = self.final
        columns = [c for c in final.columns if c.startswith("param_")]
        return tuple(c for c in columns if final[c].astype(str).nunique(dropna=False) > 1)

    def label(self, row: pd.Series) -> str:
        """A short name showing every parameter that varies in the sweep (k and embedder included)."""
        return config_label(row, self.varying)

    def scorer_groups(self, table: pd.DataFrame | None = None) -> Iterator[tuple[str, pd.DataFrame]]:
        """``table`` (default: the final configs) split by the scorer settings that vary.

        Each group comes with a title such as "k=3, embedder=tfidf"; one untitled group when none varies.
        """
        table = self.final if table is None else table
        keys = [c for c in SCORER_PARAMS if c in self.varying]
        if not keys:
            yield "", table
            return
        for values, group in table.groupby(keys, sort=True):
            values = values if isinstance(values, tuple) else (values,)
            title = ", ".join(f"{k.removeprefix('param_')}={v}" for k, v in zip(keys, values, strict=True))
            yield title, group


def load_run(directory: str | Path) -> Run:
    """Load a results directory written by ``run_sweep``, after checking the data behind it.

    Data changed since the sweep (or missing) raises with what changed: figures of one dataset are
    never shown beside the claims of another.
    """
    store = ResultsStore(directory)
    manifest = store.read_manifest()
    store.dataset()
    return Run(store, manifest, store.rows(), store.read_optional_json("recommendation.json"))


def config_label(row: pd.Series, varying: tuple[str, ...] = ()) -> str:
    """A name like "preset (strategy size/overlap unit, k=5)": every varying parameter is shown."""
    overlap = row.get("param_overlap", 0)
    text = f"{row.param_strategy} {_show(row.get('param_size'))}/{_show(overlap)} {row.get('param_unit', '')}"
    extra = [
        f"{c.removeprefix('param_')}={_show(row[c])}"
        for c in varying
        if c not in _SHOWN_ALWAYS + _SHOWN_AS_PIPELINE and c in row and not _missing(row[c])
    ]
    text = ", ".join([text.strip(), *extra])
    preset = row.get("preset")
    return f"{preset} ({text})" if isinstance(preset, str) and preset else text


def unit_of(row: pd.Series) -> str:
    """The size unit of a row's chunker (every row carries its chunker's full parameters)."""
    return str(row.get("param_unit", "chars"))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _show(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)
