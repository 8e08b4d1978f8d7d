"""Sweep definitions as plain data: a YAML file or a dict, validated into a frozen SweepConfig.

Every error names the key or path at fault in one line.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vera_lab.chunking import CHUNKERS, make_chunker
from vera_lab.data import CLAIMS_FILE, CORPUS_FILE
from vera_lab.grounding import AGGREGATES, GroundingScorer
from vera_lab.retrieval import SCOPES

# The seeds' chunking choices, always available by name (../shared/seeds).
PRESETS: dict[str, dict[str, Any]] = {
    "vera-000": {"strategy": "sentence", "size": 3000, "overlap": 0.2, "min_size": 500, "max_size": 5000},
    "docuchat-001": {"strategy": "fixed", "size": 1000, "overlap": 200},
    "vera-003": {
        "strategy": "sentence",
        "size": 512,
        "unit": "tokens",
        "overlap": 2,
        "overlap_unit": "sentences",
        "min_size": 0,
        "max_size": 512,
    },
    "kaizen-004": {"strategy": "token", "size": 512, "overlap": 50},
}
METRICS = (
    "hit", "strict_hit", "evidence_recall", "mrr", "ndcg", "span_recall", "span_precision", "span_iou",
    "grounding_f1", "grounding_accuracy", "grounding_balanced_accuracy", "grounding_roc_auc",
    "grounding_pr_auc",
)  # fmt: skip
_KEYS = {"name", "dataset", "corpus", "embedders", "k", "threshold", "scope", "aggregate", "metric",
         "presets", "grid", "halving", "claims", "ragas"}  # fmt: skip


class SweepConfigError(ValueError):
    """A sweep definition is invalid; the message names the key."""


@dataclass(frozen=True)
class SweepPoint:
    """One configuration: a chunker, an embedder and the grounding scorer's parameters."""

    chunker: tuple[tuple[str, Any], ...]  # (name, value) pairs with "strategy" first
    embedder: str
    k: int
    threshold: float | str
    scope: str
    aggregate: str
    preset: str = ""

    @property
    def chunker_params(self) -> dict[str, Any]:
        return dict(self.chunker)

    @property
    def config_id(self) -> str:
        """Stable id: a hash of every parameter (the preset name is a label, not a parameter)."""
        blob = json.dumps({**dataclasses.asdict(self), "preset": ""}, sort_keys=True, default=str)
        return hashlib.sha1(blob.encode()).hexdigest()[:12]

    def make_chunker(self):
        params = self.chunker_params
        return make_chunker(params.pop("strategy"), **params)

    def scorer(self) -> GroundingScorer:
        return GroundingScorer(k=self.k, aggregate=self.aggregate, threshold=self.threshold, scope=self.scope)


@dataclass(frozen=True)
class SweepConfig:
    """What to sweep, on what data, optimising which metric."""

    name: str
    dataset: str
    grid: tuple[Mapping[str, Any], ...] = ()
    presets: tuple[str, ...] = tuple(PRESETS)
    embedders: tuple[str, ...] = ("minilm",)
    k: tuple[int, ...] = (5,)
    threshold: tuple[float | str, ...] = ("calibrate",)
    scope: str = "corpus"
    aggregate: str = "max"
    metric: str = "mrr"
    corpus: Mapping[str, Any] = field(default_factory=dict)  # {"distractors": N, "seed": S}
    claims: Mapping[str, Any] = field(default_factory=dict)  # {"sample": N, "seed": S}
    halving: Mapping[str, Any] = field(default_factory=dict)  # {"screen": "tfidf", "keep": 0.25}
    ragas: bool = False  # add ragas's offline context metrics as columns

    def points(self) -> list[SweepPoint]:
        """The grid expanded in a deterministic order, presets first, duplicates removed."""
        chunkers: list[tuple[tuple[str, Any], ...]] = []
        labels: dict[tuple, str] = {}
        for name in self.presets:
            params = tuple(PRESETS[name].items())
            chunkers.append(params)
            labels[params] = name
        for entry in self.grid:
            strategy = entry["strategy"]
            keys = [k for k in entry if k != "strategy"]
            values = [v if isinstance(v, list) else [v] for v in (entry[k] for k in keys)]
            for combo in itertools.product(*values):
                chunkers.append((("strategy", strategy), *zip(keys, combo, strict=True)))
        seen, points = set(), []
        for chunker, embedder, k, threshold in itertools.product(
            chunkers, self.embedders, self.k, self.threshold
        ):
            point = SweepPoint(
                chunker, embedder, k, threshold, self.scope, self.aggregate, labels.get(chunker, "")
            )
            if point.config_id not in seen:
                seen.add(point.config_id)
                points.append(point)
        return points

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(dataclasses.asdict(self), default=list))


def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, list | tuple) else (value,)


def parse_config(raw: Any, source: str = "sweep config", base_dir: Path | None = None) -> SweepConfig:
    """Validate a sweep definition given as plain data."""
    if not isinstance(raw, dict):
        raise SweepConfigError(f"{source}: expected a mapping of keys (name, dataset, grid, ...)")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise SweepConfigError(f"{source}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    if "dataset" not in raw:
        raise SweepConfigError(
            f"{source}: missing key 'dataset' (a directory with {CORPUS_FILE} and {CLAIMS_FILE})"
        )
    dataset = Path(raw["dataset"])
    if base_dir is not None and not dataset.is_absolute() and not dataset.exists():
        dataset = Path(os.path.normpath(base_dir / dataset))  # "sweeps/../datasets/x" -> "datasets/x"
    missing = [f for f in (CORPUS_FILE, CLAIMS_FILE) if not (dataset / f).is_file()]
    if missing:
        raise SweepConfigError(f"{source}: dataset {raw['dataset']}: no {' or '.join(missing)} there")

    grid = raw.get("grid") or []
    if not isinstance(grid, list):
        raise SweepConfigError(f"{source}: 'grid' must be a list of {{strategy: ..., size: [...], ...}}")
    for i, entry in enumerate(grid):
        where = f"{source}: grid[{i}]"
        if not isinstance(entry, dict) or "strategy" not in entry:
            raise SweepConfigError(f"{where}: each entry needs a 'strategy'")
        if entry["strategy"] not in CHUNKERS:
            raise SweepConfigError(
                f"{where}: unknown strategy {entry['strategy']!r} (choose from {sorted(CHUNKERS)})"
            )
        fields = {f.name for f in dataclasses.fields(CHUNKERS[entry["strategy"]])}
        for key, value in entry.items():
            if key != "strategy" and key not in fields:
                raise SweepConfigError(
                    f"{where}: {entry['strategy']} has no parameter {key!r} (it takes {sorted(fields)})"
                )
            if isinstance(value, list) and not value:
                raise SweepConfigError(f"{where}: {key!r} is an empty list")
    presets = raw.get("presets", list(PRESETS))
    for name in presets or []:
        if name not in PRESETS:
            raise SweepConfigError(
                f"{source}: presets: unknown preset {name!r} (known: {', '.join(PRESETS)})"
            )
    metric = raw.get("metric", "mrr")
    if metric not in METRICS:
        raise SweepConfigError(f"{source}: metric {metric!r} is not one of {', '.join(METRICS)}")
    if raw.get("scope", "corpus") not in SCOPES:
        raise SweepConfigError(f"{source}: scope must be one of {SCOPES}")
    if raw.get("aggregate", "max") not in AGGREGATES:
        raise SweepConfigError(f"{source}: aggregate must be one of {AGGREGATES}")
    for key in ("corpus", "claims", "halving"):
        if not isinstance(raw.get(key, {}), dict):
            raise SweepConfigError(f"{source}: {key!r} must be a mapping")
    config = SweepConfig(
        name=str(raw.get("name") or Path(source).stem),
        dataset=str(dataset),
        grid=tuple(grid),
        presets=tuple(presets or ()),
        embedders=_as_tuple(raw.get("embedders", "minilm")),
        k=_as_tuple(raw.get("k", 5)),
        threshold=_as_tuple(raw.get("threshold", "calibrate")),
        scope=raw.get("scope", "corpus"),
        aggregate=raw.get("aggregate", "max"),
        metric=metric,
        corpus=raw.get("corpus") or {},
        claims=raw.get("claims") or {},
        halving=raw.get("halving") or {},
        ragas=bool(raw.get("ragas", False)),
    )
    points = config.points()
    if not points:
        raise SweepConfigError(f"{source}: the grid is empty: give 'grid' entries or 'presets'")
    for point in points:  # build every chunker and scorer now: bad values fail before any work
        try:
            point.make_chunker()
            point.scorer()
        except ValueError as exc:
            params = ", ".join(f"{k}={v!r}" for k, v in point.chunker)
            raise SweepConfigError(f"{source}: grid point ({params}): {exc}") from None
    return config


def load_config(path: str | Path) -> SweepConfig:
    """Read and validate a YAML sweep definition."""
    import yaml

    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SweepConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise SweepConfigError(f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    return parse_config(raw, str(path), base_dir=path.parent)
