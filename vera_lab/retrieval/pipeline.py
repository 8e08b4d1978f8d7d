"""The retrieval pipeline a configuration runs: retriever, reranking, expansion and context headers.

A :class:`Pipeline` is parameters only (frozen, canonical, part of a configuration's identity when
not the default); :func:`rank` runs its first stage. Spellings in a sweep file:

- ``retriever``: ``dense`` (cosine of embeddings, the default), ``bm25``, ``hybrid`` (reciprocal-rank
  fusion of the two) or ``hybrid:W`` (weighted fusion of normalised scores, W the dense share);
- ``rerank``: ``none`` or ``verifier:N`` (the trained cross-encoder reorders the top N candidates);
- ``expand``: ``none``, ``window:N`` (N neighbouring chunks on each side) or
  ``{parent: {strategy: ..., size: ...}}`` (the overlapping chunks of a coarser chunker);
- ``context``: ``none`` or ``headers`` (title and section path embedded and indexed with the chunk).

Each parameterised value can also be written as a one-key mapping: ``{hybrid: 0.5}``,
``{verifier: 20}``, ``{window: 1}`` mean ``hybrid:0.5``, ``verifier:20``, ``window:1``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vera_lab.retrieval.context import CONTEXTS
from vera_lab.retrieval.fusion import rrf, weighted
from vera_lab.retrieval.index import Hits, Index
from vera_lab.retrieval.lexical import BM25

RETRIEVERS = ("dense", "bm25", "hybrid")
POOL = 50  # candidates each retriever hands to a fusion, at least: a chunk deep in one list can still win


@dataclass(frozen=True)
class Pipeline:
    """Retriever, reranking depth (0: none), expansion and context of one configuration."""

    retriever: str = "dense"
    weight: float | None = None  # hybrid only: None is reciprocal-rank fusion, else the dense share
    rerank: int = 0
    expand: str = "none"  # none | window | parent
    window: int = 0
    parent: tuple[tuple[str, Any], ...] = ()  # the parent chunker's canonical parameters
    context: str = "none"

    def __post_init__(self) -> None:
        if self.retriever not in RETRIEVERS:
            raise ValueError(f"retriever {self.retriever!r}: one of {', '.join(RETRIEVERS)}, or hybrid:W")
        if self.weight is not None and (self.retriever != "hybrid" or not 0 <= self.weight <= 1):
            raise ValueError(f"retriever hybrid:{self.weight}: the dense share W is in [0, 1]")
        if isinstance(self.rerank, bool) or not isinstance(self.rerank, int) or self.rerank < 0:
            raise ValueError(f"rerank verifier:{self.rerank}: a whole number of candidates >= 1")
        if self.expand not in ("none", "window", "parent"):
            raise ValueError(f"expand {self.expand!r}: none, window:N or {{parent: CHUNKER}}")
        if self.expand == "window" and (isinstance(self.window, bool) or not isinstance(self.window, int)
                                        or self.window < 1):  # fmt: skip
            raise ValueError(f"expand window:{self.window}: a whole number of neighbours >= 1")
        if self.context not in CONTEXTS:
            raise ValueError(f"context {self.context!r}: one of {', '.join(CONTEXTS)}")

    @property
    def dense(self) -> bool:
        return self.retriever in ("dense", "hybrid")

    @property
    def lexical(self) -> bool:
        return self.retriever in ("bm25", "hybrid")

    def identity(self) -> dict[str, Any]:
        """The parameters that differ from plain dense retrieval (empty for it: old ids stay valid)."""
        out: dict[str, Any] = {}
        if self.retriever != "dense":
            out["retriever"] = self.retriever if self.weight is None else f"hybrid:{self.weight:g}"
        if self.rerank:
            out["rerank"] = f"verifier:{self.rerank}"
        if self.expand == "window":
            out["expand"] = f"window:{self.window}"
        elif self.expand == "parent":
            out["expand"] = {"parent": dict(self.parent)}
        if self.context != "none":
            out["context"] = self.context
        return out

    def columns(self) -> dict[str, Any]:
        """One value per dimension, as a sweep file spells it: the ``param_*`` columns of a result row."""
        identity = self.identity()
        expand = identity.get("expand", "none")
        if isinstance(expand, dict):
            expand = "parent " + "/".join(str(v) for _, v in self.parent[:2])
        return {"retriever": identity.get("retriever", "dense"), "rerank": identity.get("rerank", "none"),
                "expand": expand, "context": self.context}  # fmt: skip

    def label(self) -> str:
        """A short name: ``dense``, ``hybrid:0.5 + rerank 20 + window 1 + headers``."""
        parts = [self.identity().get("retriever", "dense")]
        parts += [f"rerank {self.rerank}"] if self.rerank else []
        parts += [f"window {self.window}"] if self.expand == "window" else []
        parts += ["parent " + "/".join(str(v) for _, v in self.parent[:2])] if self.expand == "parent" else []
        parts += ["headers"] if self.context == "headers" else []
        return " + ".join(parts)


DENSE = Pipeline()  # plain dense retrieval: the default pipeline, and how the seed presets retrieve


def _colon_form(dimension: str, value: Any, forms: str) -> Any:
    """``{name: N}`` as ``"name:N"``; any other one-key mapping is refused in words."""
    if not isinstance(value, Mapping) or (dimension == "expand" and set(value) == {"parent"}):
        return value
    if len(value) != 1 or isinstance(next(iter(value.values())), Mapping | list):
        raise ValueError(f"{dimension} {dict(value)!r}: write one of {forms}")
    name, argument = next(iter(value.items()))
    return f"{name}:{argument}"


def parse_pipeline(retriever: Any = "dense", rerank: Any = "none", expand: Any = "none",
                   context: Any = "none", canonical_parent=None) -> Pipeline:  # fmt: skip
    """A :class:`Pipeline` from a sweep file's spellings (``canonical_parent`` canonicalises a chunker).

    ``hybrid:0.5`` and ``{hybrid: 0.5}`` are one pipeline; so are ``window:1`` and ``{window: 1}``.
    """
    retriever = _colon_form("retriever", retriever, "dense, bm25, hybrid, hybrid:W or {hybrid: W}")
    rerank = _colon_form("rerank", rerank, "none, verifier:N or {verifier: N}")
    expand = _colon_form(
        "expand", expand, "none, window:N, {window: N} or {parent: {strategy: ..., size: ...}}"
    )
    weight = None
    retriever = str(retriever)
    if retriever.startswith("hybrid:"):
        try:
            weight = float(retriever.split(":", 1)[1])
        except ValueError:
            raise ValueError(
                f"retriever {retriever!r}: hybrid:W with W the dense share, e.g. hybrid:0.5"
            ) from None
        retriever = "hybrid"
    depth = 0
    if rerank not in ("none", None, False):
        text = str(rerank)
        if not text.startswith("verifier:") or not text.split(":", 1)[1].isdigit():
            raise ValueError(
                f"rerank {rerank!r}: none, verifier:N or {{verifier: N}} (N candidates the verifier reorders)"
            )
        depth = int(text.split(":", 1)[1])
        if depth < 1:
            raise ValueError(f"rerank {rerank!r}: N must be at least 1")
    kind, window, parent = "none", 0, ()
    if isinstance(expand, Mapping):
        if not isinstance(expand["parent"], Mapping):
            raise ValueError(
                f"expand {dict(expand)!r}: the parent is a chunker, {{parent: {{strategy: ..., size: ...}}}}"
            )
        kind = "parent"
        parent = (
            canonical_parent(expand["parent"])
            if canonical_parent
            else tuple(sorted(expand["parent"].items()))
        )
    elif expand not in ("none", None, False):
        text = str(expand)
        if not text.startswith("window:") or not text.split(":", 1)[1].isdigit():
            raise ValueError(
                f"expand {expand!r}: none, window:N or {{window: N}} (N neighbouring chunks on each side), "
                "or {parent: {strategy: ..., size: ...}}"
            )
        kind, window = "window", int(text.split(":", 1)[1])
    return Pipeline(retriever, weight, depth, kind, window, parent, str(context or "none"))


def rank(
    pipeline: Pipeline,
    depth: int,
    claim_vectors,
    dense_index: Index | None,
    claim_texts: Sequence[str],
    lexical_index: BM25 | None,
    allowed: Sequence[Sequence[str]] | None,
) -> Hits:
    """The first stage: every claim's chunks ranked ``depth`` deep by the pipeline's retriever."""
    if pipeline.retriever == "dense":
        return dense_index.search(claim_vectors, depth, allowed)
    if pipeline.retriever == "bm25":
        return lexical_index.search(claim_texts, depth, allowed)
    pool = max(depth, POOL)
    dense = dense_index.search(claim_vectors, pool, allowed)
    lexical = lexical_index.search(claim_texts, pool, allowed)
    if pipeline.weight is None:
        return rrf([dense, lexical], depth)
    return weighted(dense, lexical, pipeline.weight, depth)


def similarities(claim_vectors, chunk_vectors, indices: np.ndarray) -> np.ndarray:
    """The cosine of each claim with each chunk of its ranking (-inf where the ranking is padded).

    Whatever ranked the chunks, the cosine scorer reads similarities, so its thresholds keep their meaning.
    """
    import scipy.sparse as sp

    out = np.full(indices.shape, -np.inf, dtype=np.float32)
    for lo in range(0, len(indices), 256):  # row-wise products of (claim, chunk) pairs, a block at a time
        block = indices[lo : lo + 256]
        claims, places = np.nonzero(block >= 0)
        if not len(claims):
            continue
        a, b = claim_vectors[claims + lo], chunk_vectors[block[claims, places]]
        values = a.multiply(b).sum(axis=1) if sp.issparse(a) else np.einsum("ij,ij->i", a, b)
        out[claims + lo, places] = np.asarray(values).ravel()
    return out
