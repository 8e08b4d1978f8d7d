"""How long a sweep will take, said before it starts, and whether its claims can separate anything.

Embedding is nearly all of a sweep's time on a CPU, so the estimate counts the distinct chunk texts
every configuration will embed (chunking is cheap and exact), takes away those already in the
embedding cache, and prices the rest at a rate measured now on this machine: a sample of the texts
embedded without the cache, scaled by forward tokens (characters for an embedder without a word-piece
limit). Chunkers that embed to decide boundaries (semantic, tiered) and verifier work are not priced:
the estimate says so. Halving's full stage depends on the screen, so a range is given.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from vera_lab.data.clusters import claim_clusters
from vera_lab.embedding import EmbedderError, EmbeddingCache
from vera_lab.embedding.cache import text_key
from vera_lab.evaluation.resources import cached_embedder
from vera_lab.grounding import VERIFIER_SCORERS
from vera_lab.sweep.config import Configuration, SweepConfig
from vera_lab.sweep.data import Sampling, prepared_dataset
from vera_lab.sweep.halving import halving_options
from vera_lab.sweep.recommend import MIN_CLAIMS, MIN_CLUSTERS
from vera_lab.tokens import get_tokenizer

SAMPLE = 32  # texts embedded uncached to measure this machine's rate
WEIGHED = 4000  # texts whose word pieces are counted to price them all
UNPRICED = ("semantic", "tiered")  # chunkers that embed while chunking


@dataclass
class Estimate:
    """The embedding work of a sweep and the seconds it should take here."""

    texts: int = 0  # distinct chunk texts its configurations embed (claims included)
    cached: int = 0  # of those, already in the embedding cache
    seconds: float = 0.0  # for the texts not cached, at the measured rate
    rate: float = 0.0  # texts per second measured on a sample
    unpriced: list[str] = field(default_factory=list)  # configurations or stages left out
    clusters: int = 0  # independent clusters of claims
    claims_with_evidence: int = 0
    full_share: tuple[float, float] = (1.0, 1.0)  # with halving: the least and most of the grid run in full

    def sentence(self) -> str:
        """The estimate in one line, as printed before a sweep."""
        low, high = (self.seconds * share for share in self.full_share)
        shown = (
            f"about {_duration(high)}" if low == high else f"between {_duration(low)} and {_duration(high)}"
        )
        line = (
            f"estimate: {shown} of embedding ({self.texts - self.cached:,} new chunk texts at "
            f"{self.rate:.0f}/s measured now; {self.cached:,} already cached)"
        )
        if low != high:
            line += "; halving runs in full what its screen keeps"
        if self.unpriced:
            line += f"; not included: {', '.join(self.unpriced)}"
        return line

    def separation(self) -> str:
        """Whether these claims can separate configurations at all ("" when they can)."""
        if self.clusters >= MIN_CLUSTERS and self.claims_with_evidence >= MIN_CLAIMS:
            return ""
        return (
            f"only {self.claims_with_evidence} claims with evidence in {self.clusters} independent clusters "
            f"(the recommendation wants {MIN_CLAIMS} and {MIN_CLUSTERS}): few differences will be "
            "significant, so halving will keep most configurations and the choice will be inconclusive; "
            "label more claims (vera-lab claims) before a long sweep"
        )


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def _weights(texts: list[str], limit: tuple[str, int] | None) -> np.ndarray:
    """The cost of each text: word pieces read (input limit applied), or characters without a limit."""
    if limit:
        counts = np.array(get_tokenizer(limit[0]).count_many(texts), dtype=np.float64)
        return np.minimum(counts + 2, limit[1])
    return np.array([len(t) for t in texts], dtype=np.float64)


def estimate_sweep(
    config: SweepConfig, sampling: Sampling | None = None, cache_dir: str = ".cache/vera_lab"
) -> Estimate:
    """The embedding a sweep of ``config`` will do and how long it should take on this machine."""
    sampling = sampling or Sampling.from_config(config.claims, config.corpus, config.holdout)
    dataset = prepared_dataset(config.dataset, sampling)
    clusters = len(set(claim_clusters(list(dataset.claims), dataset.cluster_by)))
    out = Estimate(clusters=clusters, claims_with_evidence=sum(bool(c.evidence) for c in dataset.claims))
    points = config.points()
    if config.halving:  # the full stage: at least the floor, the presets and the calibration runs
        opts = halving_options(config.halving)
        least = math.ceil(opts["keep"] * len(points)) + len(config.presets) + opts["calibration"]
        out.full_share = (min(1.0, least / max(len(points), 1)), 1.0)
    by_embedder: dict[str, set[str]] = {}
    for point in points:
        if point.chunker_params["strategy"] in UNPRICED:
            out.unpriced.append(f"{point.chunker_params['strategy']} chunking")
            continue
        texts = by_embedder.setdefault(point.embedder, {c.text for c in dataset.claims})
        texts.update(_chunk_texts(point, dataset))
    if (
        config.verify != "none"
        or set(VERIFIER_SCORERS) & set(config.scorer)
        or any(r != "none" for r in config.rerank)
    ):
        out.unpriced.append("the verifier (it prints its own estimate before training)")
    out.unpriced = list(dict.fromkeys(out.unpriced))
    cache = EmbeddingCache(cache_dir)
    for spec, texts in by_embedder.items():
        try:
            embedder = cached_embedder(spec, cache_dir, config.device)
            if embedder.fits_corpus:  # tf-idf and the like: fitted per configuration, fast, never cached
                continue
            name = embedder.name  # a server's model answers with its dimension
        except EmbedderError as exc:  # the sweep will say it again, per configuration
            out.unpriced.append(f"{spec} (not reachable now: {str(exc)[:80]})")
            continue
        texts = sorted(texts)
        keys = [text_key(t) for t in texts]
        found = cache.get(name, keys)
        new = [t for t, k in zip(texts, keys, strict=True) if k not in found]
        out.texts += len(texts)
        out.cached += len(texts) - len(new)
        if not new:
            continue
        rate_seconds, sample_weight = _measure(embedder, new)
        # the weight of every new text from a sample of them: counting word pieces is not free either
        picked = [new[i] for i in np.random.default_rng(1).permutation(len(new))[:WEIGHED]]
        total = _weights(picked, embedder.input_limit).sum() * len(new) / len(picked)
        out.seconds += rate_seconds * total / sample_weight
    cache.close()
    out.rate = (out.texts - out.cached) / out.seconds if out.seconds else 0.0  # over every embedder
    return out


def _chunk_texts(point: Configuration, dataset) -> set[str]:
    chunker = point.make_chunker()
    return {c.text for doc in dataset.corpus for c in chunker.chunk(doc)}


def _measure(embedder, texts: list[str]) -> tuple[float, float]:
    """Seconds to embed a seeded sample of ``texts`` past the cache, and the sample's weight."""
    sample = [texts[i] for i in np.random.default_rng(0).permutation(len(texts))[:SAMPLE]]
    reader = getattr(embedder, "inner", embedder)
    reader.embed(sample[:1])  # loads the model: not timed
    start = time.perf_counter()
    reader.embed(sample)
    return time.perf_counter() - start, float(_weights(sample, embedder.input_limit).sum())
