"""A configuration: the parameters of one chunk -> index -> retrieve -> ground system, in canonical form.

``Configuration`` holds parameters only (a chunker's, an embedder's name, the grounding scorer's and the
retrieval pipeline's); :meth:`Configuration.build` binds models and fits what must be fitted, giving a
:class:`~vera_lab.evaluation.stages.System` that :func:`~vera_lab.evaluation.stages.evaluate` runs. A sweep
is a set of configurations (:mod:`vera_lab.sweep.config`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vera_lab.chunking import make_chunker
from vera_lab.evaluation.resources import Resources, cached_embedder, with_resources
from vera_lab.evaluation.stages import System
from vera_lab.grounding import VERIFIER_SCORERS, GroundingParameters
from vera_lab.retrieval import Pipeline, parse_pipeline
from vera_lab.types import Dataset


def normalise(value: Any) -> Any:
    """One spelling per value: whole floats become ints (200.0 -> 200), sequences become lists.

    1.0 stays a float: as an overlap it could mean one unit or the whole chunk, and the chunker
    refuses it rather than guess.
    """
    if isinstance(value, float) and value.is_integer() and value != 1.0:
        return int(value)
    if isinstance(value, list | tuple):
        return [normalise(v) for v in value]
    return value


def canonical_chunker(params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A chunker's full parameters after ``make_chunker`` filled the defaults: strategy first, then sorted.

    ``fixed size=1000 overlap=200``, the same with keys in another order, ``size=1000.0`` and
    ``fixed size=1000`` (200 being the default) give one canonical form. Raises ``ValueError``.
    """
    params = {k: normalise(v) for k, v in params.items()}
    strategy = params.pop("strategy")
    chunker = make_chunker(strategy, **params)
    return (("strategy", strategy), *sorted((k, normalise(v)) for k, v in chunker.params().items()))


def canonical_threshold(threshold: float | str) -> float | str:
    """``"calibrate"`` or the threshold as a float (0.7, 0.70 and 7e-1 are one rule)."""
    if threshold == "calibrate":
        return threshold
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise ValueError(f"threshold={threshold!r}: give a cosine such as 0.7, or 'calibrate'")
    return float(threshold)


@dataclass(frozen=True)
class Configuration:
    """One configuration in canonical form: chunker, embedder and the grounding scorer's parameters.

    Build it with :meth:`create` (or :meth:`from_dict`), which fills defaults and normalises, so two
    spellings of one configuration share one ``config_id``. ``presets`` are labels, not parameters.
    """

    chunker: tuple[tuple[str, Any], ...]  # canonical: ("strategy", name) first, then sorted
    embedder: str = "minilm"
    k: int = 5
    threshold: float | str = "calibrate"
    scope: str = "corpus"
    aggregate: str = "max"
    scorer: str = "cosine"
    presets: tuple[str, ...] = ()
    verifier: tuple[tuple[str, Any], ...] = ()  # the verifier's recipe, every option filled (when it is used)
    pipeline: Pipeline = Pipeline()  # retriever, reranking, expansion, context headers

    @classmethod
    def create(
        cls,
        chunker: Mapping[str, Any],
        embedder: str = "minilm",
        k: int = 5,
        threshold: float | str = "calibrate",
        scope: str = "corpus",
        aggregate: str = "max",
        scorer: str = "cosine",
        presets: tuple[str, ...] = (),
        verifier: Mapping[str, Any] | None = None,
        retrieval: Mapping[str, Any] | Pipeline | None = None,
    ) -> Configuration:
        """The canonical point for these parameters (raises ``ValueError`` on invalid ones).

        ``verifier`` holds options of the verifier's recipe; it belongs to the point only when the
        verifier is used (scorer ``verifier``, or reranking). ``retrieval`` is the pipeline as a sweep
        file spells it ({retriever, rerank, expand, context}) or a :class:`Pipeline`.
        """
        if isinstance(k, bool) or not isinstance(normalise(k), int) or k < 1:
            why = (
                f"{k!r} is refused, not rounded" if isinstance(k, float) and k == k and k >= 1 else "below 1"
            )
            raise ValueError(
                f"k={k!r}: a whole number >= 1 ({why})"
                if isinstance(k, int | float) and not isinstance(k, bool)
                else f"k={k!r}: a whole number >= 1"
            )
        pipeline = (
            retrieval
            if isinstance(retrieval, Pipeline)
            else parse_pipeline(**dict(retrieval or {}), canonical_parent=canonical_chunker)
        )
        recipe: tuple[tuple[str, Any], ...] = ()
        if scorer in VERIFIER_SCORERS or pipeline.rerank:
            from vera_lab.grounding.verifier import recipe_from, recipe_options

            recipe = tuple(recipe_options(recipe_from(verifier)).items())
        return cls(canonical_chunker(chunker), str(embedder), int(k), canonical_threshold(threshold),
                   scope, aggregate, str(scorer), tuple(presets), recipe, pipeline)  # fmt: skip

    @property
    def chunker_params(self) -> dict[str, Any]:
        return dict(self.chunker)

    @property
    def label(self) -> str:
        """A short name for progress lines: the chunking, and the pipeline, scorer and k when not default."""
        params = self.chunker_params
        size, overlap = params.get("size", ""), params.get("overlap", 0)
        overlap = f"{overlap:g}" if isinstance(overlap, int | float) else overlap
        text = f"{params['strategy']} {size}/{overlap} {params.get('unit', '')}".strip()
        text = f"{self.preset}: {text}" if self.preset else text
        extras = [self.pipeline.label()] if self.pipeline.identity() else []
        extras += [f"scorer {self.scorer}"] if self.scorer != "cosine" else []
        extras += [f"k={self.k}", self.embedder]
        return f"{text} ({', '.join(extras)})"

    @property
    def preset(self) -> str:
        """The preset names this configuration carries, for labels ("" for a plain grid point)."""
        return ", ".join(self.presets)

    def identity(self) -> dict[str, Any]:
        """Every parameter that changes a result, as plain data (labels left out)."""
        out = {"chunker": self.chunker_params, "embedder": self.embedder, "k": self.k,
               "threshold": self.threshold, "scope": self.scope, "aggregate": self.aggregate,
               "scorer": self.scorer}  # fmt: skip
        retrieval = self.pipeline.identity()  # empty for plain dense retrieval: older ids stay valid
        return (
            out
            | ({"verifier": dict(self.verifier)} if self.verifier else {})
            | ({"retrieval": retrieval} if retrieval else {})
        )

    @property
    def config_id(self) -> str:
        """A stable id: the hash of the canonical form."""
        blob = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha1(blob.encode()).hexdigest()[:12]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for manifests and JSON: the identity plus the preset labels."""
        return {**self.identity(), "presets": list(self.presets)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Configuration:
        """The point written by :meth:`to_dict` (canonicalised again, so ids always agree)."""
        data = dict(data)
        return cls.create(data.pop("chunker"), **{**data, "presets": tuple(data.get("presets", ()))})

    def parent_chunker(self):
        """The chunker of the parents a ``parent`` expansion returns (None without one)."""
        if self.pipeline.expand != "parent":
            return None
        params = dict(self.pipeline.parent)
        return make_chunker(params.pop("strategy"), **params)

    @property
    def needs_verifier(self) -> bool:
        """Whether a verifier reads this configuration's chunks: to judge them, or to rerank."""
        return self.scorer in VERIFIER_SCORERS or bool(self.pipeline.rerank)

    def build(self, resources: Resources | None = None, labelled: Dataset | None = None) -> System:
        """The configuration made runnable: its models bound from ``resources``, its verifier ready.

        The chunker and its parents get their models from the resources' cache (on its device), the
        embedder the cache or the shared vector store; the verifier, when one is needed, is the shipped
        one or, when the recipe adapts, one fitted (cross-fitted by document) on ``labelled``'s claims.
        """
        resources = Resources() if resources is None else resources
        if not isinstance(resources, Resources):
            raise TypeError(f"build({resources!r}): give Resources(cache_dir=..., device=...), or nothing")
        cache_dir = None if resources.cache_dir is None else str(resources.cache_dir)
        parent = self.parent_chunker()
        verifier = None
        if self.needs_verifier:
            from vera_lab.grounding.general import verifier_for  # loads ONNX Runtime: only when used

            claims, corpus = (list(labelled.claims), labelled.corpus) if labelled is not None else ([], None)
            verifier = verifier_for(self.verifier_recipe(), claims, corpus, cache_dir)

        def bound(chunker):
            return with_resources(chunker, cache_dir, resources.llm_host, resources.device)

        return System(
            bound(self.make_chunker()),
            cached_embedder(self.embedder, cache_dir, resources.device, resources.store),
            self.grounding_scorer(),
            verifier,
            self.pipeline,
            bound(parent) if parent is not None else None,
        )

    def verifier_recipe(self):
        """The verifier's recipe (for scorer ``verifier``)."""
        from vera_lab.grounding.verifier import recipe_from

        return recipe_from(dict(self.verifier))

    def with_scorer(self, scorer: str, verifier: Mapping[str, Any] | None = None) -> Configuration:
        """The same configuration judged by another scorer (threshold calibrated), presets kept."""
        data = {**self.to_dict(), "scorer": scorer, "threshold": "calibrate", "verifier": verifier,
                "retrieval": self.pipeline}  # fmt: skip
        return Configuration.from_dict(data)

    def make_chunker(self):
        params = self.chunker_params
        return make_chunker(params.pop("strategy"), **params)

    def grounding_scorer(self) -> GroundingParameters:
        return GroundingParameters(
            k=self.k, aggregate=self.aggregate, threshold=self.threshold, scope=self.scope, scorer=self.scorer
        )
