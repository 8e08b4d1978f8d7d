"""Sweep definitions as plain data: a YAML file or a dict, validated into a frozen SweepConfig.

Every error names the key or path at fault in one line.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vera_lab.chunking import CHUNKERS, PRESETS
from vera_lab.data import CLAIMS_FILE, CORPUS_FILE, load_metadata
from vera_lab.embedding import check_device
from vera_lab.evaluation.configuration import Configuration, canonical_chunker
from vera_lab.grounding import AGGREGATES
from vera_lab.metrics import BUDGETS
from vera_lab.retrieval import DENSE, SCOPES, Pipeline, parse_pipeline
from vera_lab.sweep.data import Sampling

BUDGET_METRICS = ("budget_recall", *(f"{m}_at_{b}" for m in ("recall", "hit") for b in BUDGETS))
METRICS = (
    "hit", "strict_hit", "evidence_recall", "mrr", "ndcg", "span_recall", "span_precision", "span_iou",
    "grounding_f1", "grounding_accuracy", "grounding_balanced_accuracy", "grounding_roc_auc",
    "grounding_pr_auc", *BUDGET_METRICS,
)  # fmt: skip
# The columns that make two configurations rivals when equal: they differ in the chunker only.
SCORER_PARAMS = ("param_embedder", "param_k", "param_threshold", "param_scope", "param_aggregate",
                 "param_scorer")  # fmt: skip
# Metrics that get a 95% bootstrap CI and a rank_<metric> column in results.csv.
CI_METRICS = ("hit", "evidence_recall", "mrr", "ndcg", "span_recall", "span_iou", "grounding_f1",
              *BUDGET_METRICS)  # fmt: skip
_KEYS = {"name", "dataset", "corpus", "embedders", "device", "k", "threshold", "scope", "aggregate",
         "metric", "presets", "grid", "halving", "claims", "ragas", "confirm", "scorer",
         "holdout", "verifier", "verify", "prefer", "retriever", "rerank", "expand", "context",
         "store"}  # fmt: skip
# Which configurations a sweep also judges with the trained verifier, after choosing by its metric:
# none, the choice (the recommendation and every preset) or every configuration of the final stage.
VERIFY = ("none", "choice", "final")
# Which configuration of the indistinguishable set is recommended: the cheapest by vectors stored then
# forward tokens, the other way round, or the best by the metric.
PREFER = ("smallest_index", "fewest_vectors", "fewest_tokens", "best")


def scope_warning(dataset: str) -> str:
    """The warning for corpus-wide retrieval on a dataset that declares the cited scope."""
    return (
        f"{dataset} declares scope 'cited' (each claim is about its own documents); corpus-wide "
        "retrieval searches every other document too and answers a different question"
    )


SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class SweepConfigError(ValueError):
    """A sweep definition is invalid; the message names the key."""


@dataclass(frozen=True)
class SweepConfig:
    """What to sweep, on what data, optimising which metric."""

    name: str
    dataset: str
    grid: tuple[Mapping[str, Any], ...] = ()
    presets: tuple[str, ...] = ()  # seed presets run beside the grid: only those the file lists
    embedders: tuple[str, ...] = ("minilm",)
    k: tuple[int, ...] = (5,)
    threshold: tuple[float | str, ...] = ("calibrate",)
    scorer: tuple[str, ...] = ("cosine",)
    scope: str = "corpus"
    aggregate: str = "max"
    metric: str = "mrr"
    metric_reason: str = ""  # why the metric was chosen when the sweep file names none
    corpus: Mapping[str, Any] = field(default_factory=dict)  # {"distractors": N, "seed": S}
    claims: Mapping[str, Any] = field(default_factory=dict)  # {"sample": N, "seed": S}
    halving: Mapping[str, Any] = field(default_factory=dict)  # {"screen": "tfidf", "keep": 0.25}
    ragas: bool = False  # add ragas's offline context metrics as columns
    confirm: str = ""  # a held-out dataset: the recommendation and presets are re-run there, unchanged
    confirm_documents: int | None = None  # a seeded sample of its documents (and their claims), or all
    holdout: float = 0.0  # a share of the claims set aside before anything runs, to confirm the choice
    device: str = "auto"  # where minilm embeds: auto (CUDA fp16 when present), cpu or cuda
    verifier: Mapping[str, Any] = field(default_factory=dict)  # options of the verifier's recipe
    verify: str = "none"  # one of VERIFY
    prefer: str = "smallest_index"  # which indistinguishable configuration is recommended (see recommend)
    retriever: tuple[str, ...] = ("dense",)  # the retrieval pipeline's dimensions (vera_lab.retrieval)
    rerank: tuple[Any, ...] = ("none",)
    expand: tuple[Any, ...] = ("none",)
    context: tuple[str, ...] = ("none",)
    store: str = ""  # a folder or fsspec URL whose vectors every worker shares ("": the local cache)

    def points(self) -> list[Configuration]:
        """The grid expanded in a deterministic order, presets first.

        Points with one canonical form are one configuration: a preset equal to a grid point is
        computed once and carries the preset's name. A seed preset runs as its design record describes
        it, with plain dense retrieval, whatever pipelines the grid sweeps: it is the rival that shows
        what a pipeline adds.
        """
        points: dict[str, Configuration] = {}
        combos = (
            (spec, retrieval)
            for spec in self.chunker_specs()
            for retrieval in ([DENSE] if spec[1] else self.pipelines())
        )
        for ((chunker, presets), retrieval), embedder, k, threshold, scorer in itertools.product(
            combos, self.embedders, self.k, self.threshold, self.scorer
        ):
            point = Configuration.create(chunker, embedder, k, threshold, self.scope, self.aggregate, scorer,
                                      presets, self.verifier, retrieval)  # fmt: skip
            known = points.get(point.config_id)
            if known is not None:
                point = dataclasses.replace(known, presets=tuple(dict.fromkeys(known.presets + presets)))
            points[point.config_id] = point
        return list(points.values())

    def pipelines(self) -> list[Pipeline]:
        """Every retrieval pipeline of the grid: retriever x rerank x expand x context."""
        return [
            parse_pipeline(r, rr, e, c, canonical_parent=canonical_chunker)
            for r, rr, e, c in itertools.product(self.retriever, self.rerank, self.expand, self.context)
        ]

    def chunker_specs(self) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
        """Chunker parameters as written (presets first, then the grid expanded) with preset labels."""
        specs: list[tuple[dict[str, Any], tuple[str, ...]]] = [
            (dict(PRESETS[name]), (name,)) for name in self.presets
        ]
        for entry in self.grid:
            keys = [k for k in entry if k != "strategy"]
            values = [v if isinstance(v, list) else [v] for v in (entry[k] for k in keys)]
            for combo in itertools.product(*values):
                specs.append(({"strategy": entry["strategy"], **dict(zip(keys, combo, strict=True))}, ()))
        return specs

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(dataclasses.asdict(self), default=list))


def default_metric(metadata: Mapping[str, Any]) -> tuple[str, str]:
    """The metric a sweep selects by when its file names none, and why.

    Budget recall where the dataset declares ``scope: cited`` or ``long_documents: true``: each
    claim is searched in long documents, where a fixed k favours big chunks. MRR otherwise.
    """
    if metadata.get("scope") == "cited" or metadata.get("long_documents") is True:
        why = "scope: cited" if metadata.get("scope") == "cited" else "long_documents: true"
        return "budget_recall", (
            f"metric: budget_recall, because the dataset declares {why} (a fixed k favours big chunks in "
            "long documents; budget recall compares chunkers at equal characters read). Write `metric:` "
            "in the sweep file to choose another."
        )
    return "mrr", ""


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
    dataset = _dataset_dir(raw["dataset"], "dataset", source, base_dir)
    confirm, confirm_documents = _confirm(raw, source, base_dir)
    grid = _grid(raw, source)
    presets = _presets(raw, source)
    metric, metric_reason, scope = _metric_and_scope(raw, dataset, source)
    if raw.get("aggregate", "max") not in AGGREGATES:
        raise SweepConfigError(f"{source}: aggregate must be one of {AGGREGATES}")
    _check_sections(raw, source)
    name = _name(raw, source, base_dir)
    _check_embedders(raw, source)
    config = SweepConfig(
        name=name,
        dataset=str(dataset),
        grid=tuple(grid),
        presets=tuple(presets or ()),
        embedders=_as_tuple(raw.get("embedders", "minilm")),
        k=_as_tuple(raw.get("k", 5)),
        threshold=_as_tuple(raw.get("threshold", "calibrate")),
        scorer=_as_tuple(raw.get("scorer", "cosine")),
        scope=scope,
        aggregate=raw.get("aggregate", "max"),
        metric=metric,
        metric_reason=metric_reason,
        corpus=raw.get("corpus") or {},
        claims=raw.get("claims") or {},
        halving=raw.get("halving") or {},
        ragas=bool(raw.get("ragas", False)),
        confirm=str(confirm or ""),
        confirm_documents=confirm_documents,
        holdout=_holdout(raw.get("holdout", 0.0), source),
        device=_device(raw.get("device", "auto"), source),
        verifier=_verifier_options(raw.get("verifier") or {}, source),
        verify=_verify(raw.get("verify", "none"), source),
        prefer=_prefer(raw.get("prefer", "smallest_index"), source),
        retriever=_as_tuple(raw.get("retriever", "dense")),
        rerank=_as_tuple(raw.get("rerank", "none")),
        expand=_as_tuple(raw.get("expand", "none")),
        context=_as_tuple(raw.get("context", "none")),
        store=str(raw.get("store") or ""),
    )
    _check_points(config, source)
    return config


def _confirm(raw: dict, source: str, base_dir: Path | None) -> tuple[Path | None, int | None]:
    """``confirm:``: the dataset that confirms the choice, and how many of its documents."""
    confirm_raw = raw.get("confirm") or {}
    confirm_raw = {"dataset": confirm_raw} if isinstance(confirm_raw, str) else confirm_raw
    if not isinstance(confirm_raw, dict) or set(confirm_raw) - {"dataset", "documents"}:
        raise SweepConfigError(f"{source}: confirm: a dataset path, or {{dataset: PATH, documents: N}}")
    confirm = _dataset_dir(confirm_raw["dataset"], "confirm", source, base_dir) if confirm_raw else None
    confirm_documents = confirm_raw.get("documents")
    if confirm_documents is not None and (not isinstance(confirm_documents, int) or confirm_documents < 1):
        raise SweepConfigError(
            f"{source}: confirm.documents {confirm_documents!r}: a whole number of documents"
        )
    return confirm, confirm_documents


def _grid(raw: dict, source: str) -> list:
    """``grid:``: chunker entries whose parameters the strategy takes."""
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
    return grid


def _presets(raw: dict, source: str) -> list:
    """``presets:``: seed preset names (one name or a list)."""
    presets = raw.get("presets") or []  # absent: none; the README's template lists the seed presets
    presets = [presets] if isinstance(presets, str) else presets  # "presets: vera-000" is one name
    if not isinstance(presets, list | type(None)):
        raise SweepConfigError(f"{source}: presets: a list of preset names (known: {', '.join(PRESETS)})")
    for name in presets or []:
        if name not in PRESETS:
            raise SweepConfigError(
                f"{source}: presets: unknown preset {name!r} (known: {', '.join(PRESETS)})"
            )
    return presets or []


def _metric_and_scope(raw: dict, dataset: Path, source: str) -> tuple[str, str, str]:
    """The selection metric (and why, when defaulted) and the retrieval scope, from the dataset's own."""
    metadata = load_metadata(dataset)
    declared = metadata.get("scope")
    metric, metric_reason = default_metric(metadata) if "metric" not in raw else (raw["metric"], "")
    if metric not in METRICS:
        raise SweepConfigError(f"{source}: metric {metric!r} is not one of {', '.join(METRICS)}")
    scope = raw.get("scope", declared or "corpus")
    if scope not in SCOPES:
        raise SweepConfigError(f"{source}: scope must be one of {SCOPES}")
    if declared == "cited" and scope == "corpus":
        warnings.warn(scope_warning(str(dataset)), stacklevel=3)
    return metric, metric_reason, scope


def _check_sections(raw: dict, source: str) -> None:
    """``corpus:``, ``claims:`` and ``halving:`` are mappings of known keys."""
    for key in ("corpus", "claims", "halving"):
        if not isinstance(raw.get(key) or {}, dict):
            raise SweepConfigError(f"{source}: {key!r} must be a mapping")
    for key, allowed in (("claims", {"sample", "seed"}), ("corpus", {"distractors", "seed"})):
        unknown = sorted(set(raw.get(key) or {}) - allowed)
        if unknown:
            raise SweepConfigError(
                f"{source}: {key}: unknown key {unknown[0]!r} (known: {', '.join(sorted(allowed))})"
            )
    try:
        Sampling.from_config(raw.get("claims") or {}, raw.get("corpus") or {})
    except ValueError as exc:
        raise SweepConfigError(f"{source}: {exc}") from None


def _name(raw: dict, source: str, base_dir: Path | None) -> str:
    """The sweep's name, which names its results folder."""
    name = str(raw.get("name") or (Path(source).stem if base_dir is not None else "sweep"))
    if not SAFE_NAME.fullmatch(name) or name in (".", ".."):
        raise SweepConfigError(
            f"{source}: name {name!r}: start with a letter or digit, then letters, digits, '.', '_' and '-' "
            "only, at most 100 characters (it names the results folder: results/<name>/)"
        )
    return name


def _check_embedders(raw: dict, source: str) -> None:
    """An ``openai:`` embedder's form and credentials, checked before anything is written."""
    for spec in _as_tuple(raw.get("embedders", "minilm")):
        if str(spec).startswith("openai:"):  # checked before anything is written (credentials, form)
            from vera_lab.embedding import EmbedderError
            from vera_lab.embedding.openai_compat import parse_spec

            try:
                parse_spec(str(spec))
            except EmbedderError as exc:
                raise SweepConfigError(f"{source}: embedders: {exc}") from None


def _verifier_options(value: Any, source: str) -> dict[str, Any]:
    from vera_lab.grounding.verifier import recipe_from

    if not isinstance(value, dict):
        raise SweepConfigError(
            f"{source}: verifier: a mapping of recipe options, e.g. {{folds: 4, epochs: 1}}"
        )
    try:
        recipe_from(value)
    except ValueError as exc:
        raise SweepConfigError(f"{source}: {exc}") from None
    return dict(value)


def _verify(value: Any, source: str) -> str:
    value = "none" if value is False or value is None else value
    if value not in VERIFY:
        raise SweepConfigError(
            f"{source}: verify {value!r}: one of {', '.join(VERIFY)} (which configurations the trained "
            "verifier judges after the choice)"
        )
    return value


def _prefer(value: Any, source: str) -> str:
    if value not in PREFER:
        raise SweepConfigError(
            f"{source}: prefer {value!r}: one of {', '.join(PREFER)} (which of the configurations not "
            "significantly worse than the best is recommended)"
        )
    return value


def _holdout(value: Any, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1:
        raise SweepConfigError(f"{source}: holdout {value!r}: a share of the claims in [0, 1), e.g. 0.3")
    return float(value)


def _device(value: Any, source: str) -> str:
    try:
        return check_device(value)
    except ValueError as exc:
        raise SweepConfigError(f"{source}: {exc}") from None


def _dataset_dir(value: Any, key: str, source: str, base_dir: Path | None) -> Path:
    """A dataset directory named in the sweep file, checked to hold both files.

    A relative path is relative to the file (never to the current folder, which may hold another
    dataset of that name); the absolute path is what the run records.
    """
    path = Path(str(value))
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    path = Path(os.path.abspath(path))  # "sweeps/../datasets/x" -> "/.../datasets/x"
    missing = [f for f in (CORPUS_FILE, CLAIMS_FILE) if not (path / f).is_file()]
    if missing:
        where = f" (relative to the sweep file: {path})" if str(value) != str(path) else ""
        raise SweepConfigError(f"{source}: {key} {value}: no {' or '.join(missing)} there{where}")
    return path


def _check_points(config: SweepConfig, source: str) -> None:
    """Build every chunker, scorer and pipeline now, so bad values fail before any work, naming the key."""
    try:
        config.pipelines()
    except ValueError as exc:
        raise SweepConfigError(f"{source}: {exc}") from None
    for params, _ in config.chunker_specs():
        try:
            canonical_chunker(params)
        except ValueError as exc:
            shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
            raise SweepConfigError(f"{source}: grid point ({shown}): {exc}") from None
    for k, threshold, scorer in itertools.product(config.k, config.threshold, config.scorer):
        try:
            point = Configuration.create({"strategy": "fixed"}, k=k, threshold=threshold, scorer=scorer)
            point.grounding_scorer()
        except ValueError as exc:
            raise SweepConfigError(f"{source}: {exc}") from None
    if not config.points():
        raise SweepConfigError(f"{source}: the grid is empty: give 'grid' entries or 'presets'")


def load_config(path: str | Path) -> SweepConfig:
    """Read and validate a YAML sweep definition (UTF-8; a key given twice is an error, not a guess)."""
    import yaml

    path = Path(path)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_unique_key_loader())  # noqa: S506 - safe
    except OSError as exc:
        raise SweepConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise SweepConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise SweepConfigError(f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    return parse_config(raw, str(path), base_dir=path.parent)


def _unique_key_loader():
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        """YAML's safe loader, refusing a mapping that gives one key twice (YAML would keep the last)."""

        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"duplicate key {key!r} (the second would silently win)",
                        key_node.start_mark,
                    )
                seen.add(key)
            return super().construct_mapping(node, deep)

    return UniqueKeyLoader


def __getattr__(name: str):
    """``SweepPoint``, the old name of :class:`Configuration`, still imports, with a warning."""
    if name == "SweepPoint":
        warnings.warn("SweepPoint is now Configuration (the same class)", DeprecationWarning, stacklevel=2)
        return Configuration
    raise AttributeError(f"module 'vera_lab.sweep.config' has no attribute {name!r}")
