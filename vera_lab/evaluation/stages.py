"""One configuration on one dataset: chunk -> index -> retrieve -> ground -> measure -> diagnose.

``evaluate(dataset, configuration)`` is the one entry: the sweep runs it once per configuration,
``vera-lab evaluate`` once; :class:`System` is a configuration with its models bound.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from vera_lab.chunking import Chunker, chunk_stats
from vera_lab.embedding import CachedEmbedder, Embedder
from vera_lab.evaluation.resources import Resources
from vera_lab.grounding import (
    GOLD_VERDICT,
    VERDICTS,
    VERIFIER_SCORERS,
    Found,
    GroundingParameters,
    Scored,
    Verdict,
    grounder_for,
)
from vera_lab.metrics import (
    BUDGETS,
    budget_depth,
    budget_scores,
    chroma_span_scores,
    confusion_by_label,
    confusion_table,
    count_touching,
    gold_ranks,
    grounding_scores,
    precision_omega,
    retrieval_scores,
    three_way_scores,
)
from vera_lab.metrics.diagnostics import MISS_REASONS, miss_reason, seen_ends, truncation_audit
from vera_lab.retrieval import (
    DENSE,
    Hits,
    Pipeline,
    SearchIndex,
    parent_spans,
    similarities,
    window_spans,
)
from vera_lab.tokens import get_tokenizer
from vera_lab.types import Chunk, Claim, Corpus, Dataset, Span


@dataclass
class Evaluation:
    """Everything one configuration produced: summary metrics, per-claim rows, chunk stats and cost."""

    metrics: dict[str, float]
    per_claim: pd.DataFrame
    chunk_stats: dict[str, float]
    cost: dict[str, float]
    threshold: float
    confusion: dict[str, dict[str, int]]
    verdicts: list[Verdict] = field(repr=False)
    chunks: list[Chunk] = field(repr=False)
    confusion_three_way: dict[str, dict[str, int]] | None = None  # gold -> verdict, three-way scorers

    def summary(self) -> dict[str, Any]:
        """Metrics, threshold, confusion, chunk statistics and cost as plain data (JSON-ready)."""
        return {
            "metrics": self.metrics,
            "threshold": self.threshold,
            "confusion_by_label": self.confusion,
            **({"confusion_three_way": self.confusion_three_way} if self.confusion_three_way else {}),
            "chunk_stats": self.chunk_stats,
            "cost": self.cost,
        }


def chunk_corpus(chunker: Chunker, dataset: Dataset) -> list[Chunk]:
    """All chunks of all documents, in corpus order."""
    return [c for doc in dataset.corpus for c in chunker.chunk(doc)]


@dataclass
class System:
    """A configuration made runnable: its chunker and embedder bound, its verifier loaded or fitted.

    :meth:`Configuration.build <vera_lab.evaluation.configuration.Configuration.build>` makes one from
    parameters; a notebook or test may also bind components by hand (an in-memory embedder, say).
    """

    chunker: Chunker
    embedder: Embedder
    scorer: GroundingParameters
    verifier: Any = None  # the shipped general verifier (default, when needed), or one adapted to labels
    pipeline: Pipeline = DENSE
    parent_chunker: Chunker | None = None  # cuts the parents a ``parent`` expansion returns

    def evaluate(self, dataset: Dataset) -> Evaluation:
        """Run on ``dataset``: chunk, index, retrieve, ground, measure, diagnose (see :func:`evaluate`)."""
        return evaluate(dataset, self)


def evaluate(
    dataset: Dataset,
    configuration: Any,
    *components: Any,
    resources: Resources | None = None,
    labelled: Dataset | None = None,
    **named: Any,
) -> Evaluation:
    """Run one configuration on every claim of ``dataset`` (subsample with ``sample_dataset``).

    ``configuration`` is a :class:`~vera_lab.evaluation.configuration.Configuration` (built here with
    ``resources``; an adapting verifier learns from ``labelled``'s claims, by default ``dataset``'s,
    cross-fitted by document), a :class:`System` already built, or a chunker followed by the other
    components of a :class:`System` in its order (``evaluate(ds, chunker, embedder, scorer, verifier,
    pipeline, parent_chunker)``).

    The stages, each callable alone: :func:`chunk_corpus`, ``SearchIndex.build`` (index),
    :func:`retrieve`, :func:`ground`, :func:`measure`, :func:`diagnose`. The verifier scorers read each
    claim's chunks with the system's verifier (default: the shipped one), which also reranks when
    ``pipeline.rerank`` asks. ``pipeline`` sets the retriever, expansion and context
    headers (:mod:`vera_lab.retrieval`); a ``parent`` expansion cuts parents with ``parent_chunker``.
    Retrieval metrics count what the reader receives (expanded spans), and so does grounding: the
    verifier and the learned scorer read each retrieved chunk's expansion, and verdicts cite it. The
    cosine scorer reads the similarity of the indexed chunk (its expansion has no vector).
    """
    return _run(dataset, _system(dataset, configuration, components, named, resources, labelled))


def _run(dataset: Dataset, system: System) -> Evaluation:
    """The stages, in order, on one dataset, timed for the cost columns."""
    chunker, embedder, scorer, pipeline = system.chunker, system.embedder, system.scorer, system.pipeline
    parent_chunker = system.parent_chunker
    claims = list(dataset.claims)
    seconds: dict[str, float] = {}
    with _timed(seconds, "chunk_s"):
        chunks = chunk_corpus(chunker, dataset)
    if not chunks:
        raise ValueError(f"{chunker.strategy} produced no chunks for dataset {dataset.name!r}")
    stats_before = asdict(embedder.stats) if isinstance(embedder, CachedEmbedder) else None
    search = SearchIndex.build(chunks, dataset.corpus, pipeline, embedder, seconds)  # embed, index
    verifier = _verifier(scorer, pipeline, system.verifier)
    with _timed(seconds, "embed_s"):
        claim_vectors = embedder.embed([c.text for c in claims])
    with _timed(seconds, "retrieve_s"):
        reader = reader_spans(chunks, pipeline, parent_chunker, dataset)
        deep = retrieve(search, claims, claim_vectors, reader, scorer, pipeline)
    if pipeline.rerank:
        from vera_lab.grounding.rerank import rerank

        with _timed(seconds, "rerank_s"):
            deep = rerank(claims, deep, chunks, verifier, pipeline.rerank)
    if pipeline.retriever != "dense" or pipeline.rerank:  # the cosine scorer reads similarities
        deep = Hits(deep.indices, similarities(claim_vectors, search.vectors, deep.indices))
    hits = Hits(deep.indices[:, : scorer.k], deep.scores[:, : scorer.k])
    with _timed(seconds, "score_s"):
        judged = chunks if pipeline.expand == "none" else received(chunks, reader, dataset)
        grounding = ground(claims, Found(hits, judged), scorer, verifier, dataset.corpus)
    with _timed(seconds, "metrics_s"):
        metrics, per_claim, confusion = measure(claims, chunks, reader, deep.indices, grounding, scorer)
        confusion_three_way = _three_way(claims, grounding.scored, metrics, per_claim)
        seen = reading_ends(chunks, embedder, search.texts)
        diagnosis, per_claim["miss_reason"] = diagnose(claims, chunks, per_claim, seen, scorer.scope)
        metrics.update(diagnosis)
    cost = {
        **seconds,
        **_cost(chunks, search, embedder, seen, pipeline, deep, grounding.scored, scorer.k, stats_before),
    }
    return Evaluation(
        metrics, per_claim, chunk_stats(chunks, dataset.corpus), cost, grounding.threshold, confusion,
        grounding.verdicts, chunks, confusion_three_way,
    )  # fmt: skip


def _system(dataset, configuration, components, named, resources, labelled) -> System:
    """The :class:`System` that ``evaluate``'s arguments describe (see its docstring)."""
    if isinstance(configuration, System):
        if components or named:
            raise TypeError("evaluate(dataset, system) takes no further components: they are the system's")
        return configuration
    if isinstance(configuration, Chunker):
        return System(configuration, *components, **named)
    if not hasattr(configuration, "build") or components or named:
        raise TypeError(
            f"evaluate(dataset, {type(configuration).__name__}): give a Configuration, a System, or a "
            "chunker followed by an embedder and GroundingParameters"
        )
    return configuration.build(resources, labelled if labelled is not None else dataset)


def _verifier(scorer: GroundingParameters, pipeline: Pipeline, verifier):
    """The verifier given, or the shipped one when the scorer or the reranker reads with one."""
    if (scorer.scorer in VERIFIER_SCORERS or pipeline.rerank) and verifier is None:
        from vera_lab.grounding.general import load_verifier

        return load_verifier()
    return verifier


@contextmanager
def _timed(seconds: dict[str, float], key: str):
    """Add the seconds the block takes to ``seconds[key]``."""
    start = time.perf_counter()
    yield
    seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - start


def retrieve(
    search: SearchIndex,
    claims: Sequence[Claim],
    claim_vectors: np.ndarray,
    reader: Sequence[Span],
    scorer: GroundingParameters,
    pipeline: Pipeline,
) -> Hits:
    """Each claim's ranking, deep enough to fill the largest context budget: its first k are the top k.

    ``reader`` is what the reader receives for each chunk (:func:`reader_spans`): budgets count it.
    """
    depth = max(scorer.k, pipeline.rerank, budget_depth([s.end - s.start for s in reader], max(BUDGETS)))
    allowed = [c.cited_doc_ids for c in claims] if scorer.scope == "cited" else None
    return search.rank(claim_vectors, [c.text for c in claims], depth, allowed)


@dataclass
class Grounding:
    """What grounding decided: scores judged out of fold, the threshold to use, and cited verdicts."""

    scored: Scored
    threshold: float  # fitted on every claim: the one a user applies
    verdicts: list[Verdict]


def ground(
    claims: Sequence[Claim], found: Found, scorer: GroundingParameters, verifier, corpus: Corpus
) -> Grounding:
    """Every claim scored by what was fitted without it (:meth:`Grounder.cross_fit`), with its verdict."""
    scored = grounder_for(scorer, verifier).cross_fit(claims, found)
    threshold = scorer.resolve_threshold(claims, scored.scores)
    verdicts = scorer.verdicts(
        claims, found.hits, scored.scores, threshold, found.chunks, corpus, scored.probabilities
    )
    return Grounding(scored, threshold, verdicts)


def reading_ends(
    chunks: Sequence[Chunk], embedder: Embedder, texts: Sequence[str] | None = None
) -> np.ndarray:
    """Where ``embedder`` stops reading each chunk: its end, or where its input limit cuts it.

    ``texts`` are what is embedded when a context header precedes the chunk: the header's word
    pieces come out of the chunk's share of the limit.
    """
    limit = embedder.input_limit
    if not limit:
        return np.array([c.end for c in chunks])
    tokenizer = get_tokenizer(limit[0])
    prefixes = [t[: len(t) - len(c.text)] for t, c in zip(texts or [], chunks, strict=False)]
    reserved = tokenizer.count_many(prefixes) if any(prefixes) else None
    return seen_ends(chunks, tokenizer, limit[1], reserved)


EMBED_SAMPLE = 64  # chunks embedded again, uncached, to measure what embedding this configuration costs


def embedding_cost(
    chunks: Sequence[Chunk], embedder: Embedder, seen: np.ndarray, texts: Sequence[str] | None = None
) -> dict[str, float]:
    """What embedding the chunks costs: forward tokens, characters never read, and measured seconds.

    ``forward_tokens`` counts the word pieces the model reads per chunk, its two special tokens
    included and its input limit applied (NaN for an embedder without a word-piece limit, such as
    tf-idf). ``truncated_chars`` are the chunk characters past that limit: stored and never read.
    ``embed_seconds`` is measured on this machine: a seeded sample of ``EMBED_SAMPLE`` chunks embedded
    again without the cache, scaled to all chunks by forward tokens (by characters when unknown).
    """
    texts = list(texts) if texts is not None else [c.text for c in chunks]  # as embedded (headers)
    limit = embedder.input_limit
    tokens = np.full(len(texts), np.nan)
    if limit:
        counts = np.array(get_tokenizer(limit[0]).count_many(texts), dtype=np.float64)
        tokens = np.minimum(counts + 2, limit[1])  # [CLS] ... [SEP], as sentence-transformers reads them
    lengths = np.array([len(t) for t in texts], dtype=np.float64)
    sample = np.sort(np.random.default_rng(0).permutation(len(texts))[:EMBED_SAMPLE])
    reader = getattr(embedder, "inner", embedder)  # past the cache: the vectors are computed again
    reader.embed(texts[:1])  # loads the model when every vector came from the cache: not timed
    start = time.perf_counter()
    reader.embed([texts[i] for i in sample])
    sample_seconds = time.perf_counter() - start
    weight = tokens if limit else lengths
    scale = weight.sum() / weight[sample].sum() if weight[sample].sum() else 0.0
    return {
        "forward_tokens": float(tokens.sum()) if limit else float("nan"),
        "truncated_chars": float(sum(c.end - int(e) for c, e in zip(chunks, seen, strict=True))),
        "embed_seconds": float(sample_seconds * scale),
    }


def _cost(
    chunks: Sequence[Chunk],
    search: SearchIndex,
    embedder: Embedder,
    seen: np.ndarray,
    pipeline: Pipeline,
    deep: Hits,
    scored: Scored,
    k: int,
    stats_before: dict | None,
) -> dict[str, float]:
    """What the configuration costs: chunks, index sizes, embedding, reranking and verifying."""
    cost: dict[str, float] = {
        "n_chunks": float(len(chunks)),
        "index_mb": _nbytes(search.vectors) / 1e6,
        "chunk_chars": float(sum(c.end - c.start for c in chunks)),
        **embedding_cost(chunks, embedder, seen, search.texts),
    }
    if search.lexical is not None:
        cost["bm25_index_mb"] = search.lexical.nbytes / 1e6
    if pipeline.rerank:
        cost["rerank_pairs"] = float((deep.indices[:, : pipeline.rerank] >= 0).sum())
    if stats_before is not None:
        after = asdict(embedder.stats)  # type: ignore[attr-defined]
        cost["embedded_texts"] = float(after["embedded"] - stats_before["embedded"])
        cost["cache_hits"] = float(after["hits"] - stats_before["hits"])
    if scored.truncated is not None:
        cost["verifier_pairs"] = float((deep.indices[:, :k] >= 0).sum())
        cost["verifier_truncated_pieces"] = float(scored.truncated.sum())
    return cost


def _three_way(
    claims: Sequence[Claim], scored: Scored, metrics: dict[str, float], per_claim: pd.DataFrame
) -> dict[str, dict[str, int]] | None:
    """Three-way metrics and per-claim columns of a three-way scorer; returns its confusion table."""
    if scored.probabilities is None:
        return None
    gold = [GOLD_VERDICT[c.label] for c in claims]
    predicted = [VERDICTS[i] for i in np.argmax(scored.probabilities, axis=1)]
    metrics.update({f"verdict_{k}": v for k, v in three_way_scores(gold, predicted, VERDICTS).items()})
    for j, name in enumerate(VERDICTS):
        per_claim[f"p_{name}"] = scored.probabilities[:, j]
    per_claim["verdict"] = predicted
    per_claim["deciding_rank"] = scored.deciding_rank
    per_claim["truncated_pieces"] = scored.truncated
    metrics["verifier_truncated_share"] = float(np.mean(scored.truncated > 0)) if len(claims) else 0.0
    return confusion_table(gold, predicted, VERDICTS)


def _nbytes(vectors) -> int:
    if sp.issparse(vectors):
        return int(vectors.data.nbytes + vectors.indices.nbytes + vectors.indptr.nbytes)
    return int(np.asarray(vectors).nbytes)


def measure(
    claims: Sequence[Claim],
    chunks: Sequence[Chunk],
    reader: Sequence[Span],
    deep_indices: np.ndarray,
    grounding: Grounding,
    scorer: GroundingParameters,
) -> tuple[dict[str, float], pd.DataFrame, dict[str, dict[str, int]]]:
    """Summary metrics, per-claim rows and the confusion table.

    Grounding decisions are out of fold (each claim against ``judged_by``, a threshold fitted
    without it); the in-sample optimum (the threshold fitted on every claim) gets ``_in_sample``
    columns, and calling every claim grounded gets ``_trivial`` ones.

    ``deep_indices`` are ranked chunk rows per claim, at least k deep: the first k are the retrieved
    list, all of them feed the budget-matched metrics. ``reader`` is what the reader receives for each
    chunk (its span, or its expansion): retrieval metrics count those characters, a span handed over
    twice (two neighbours' windows) once.
    """
    indices = deep_indices[:, : scorer.k]
    spans = list(reader)
    metrics, columns = _retrieval_measures(claims, chunks, spans, deep_indices, scorer)
    scores, judged_by = grounding.scored.scores, grounding.scored.judged_by
    y_true = np.array([c.label == "supported" for c in claims])
    grounded = scores >= judged_by
    in_sample = scores >= grounding.threshold
    metrics.update({f"grounding_{k}": v for k, v in grounding_scores(y_true, grounded, scores).items()})
    for suffix, decisions in (("in_sample", in_sample), ("trivial", np.ones_like(y_true))):
        for name, value in grounding_scores(y_true, decisions).items():
            if name != "balanced_accuracy":
                metrics[f"grounding_{name}_{suffix}"] = value

    rows = pd.DataFrame(
        {
            "claim_id": [c.claim_id for c in claims],
            "label": [c.label for c in claims],
            "score": scores,
            "grounded": grounded,
            "grounded_in_sample": in_sample,
            "threshold": judged_by,
            "retrieved": [json.dumps([chunks[r].chunk_id for r in row if r >= 0]) for row in indices],
            # ids are data, never parsed: the spans travel beside them as [doc_id, start, end]
            "retrieved_spans": [
                json.dumps([[spans[r].doc_id, spans[r].start, spans[r].end] for r in row if r >= 0])
                for row in indices
            ],
            **columns,
        }
    )
    return metrics, rows, confusion_by_label([c.label for c in claims], grounded.tolist())


def _retrieval_measures(
    claims: Sequence[Claim],
    chunks: Sequence[Chunk],
    spans: Sequence[Span],
    deep_indices: np.ndarray,
    scorer: GroundingParameters,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Retrieval metrics (means over claims with evidence) and their per-claim columns (NaN without)."""
    by_doc: dict[str, list[int]] = {}
    for row, c in enumerate(chunks):
        by_doc.setdefault(c.doc_id, []).append(row)
    chunk_arrays = {d: np.array([(spans[r].start, spans[r].end) for r in rows]) for d, rows in by_doc.items()}
    retrieved = [_distinct(spans[r] for r in row if r >= 0) for row in deep_indices[:, : scorer.k]]
    with_evidence = [i for i, c in enumerate(claims) if c.evidence]
    gold = [claims[i].evidence for i in with_evidence]
    n_relevant = []  # relevant chunks the search could have returned (the nDCG ideal)
    for i in with_evidence:
        claim = claims[i]
        docs = claim.cited_doc_ids if scorer.scope == "cited" else [s.doc_id for s in claim.evidence]
        n_relevant.append(count_touching(chunk_arrays, docs, claim.evidence))
    per_claim = dict(retrieval_scores([retrieved[i] for i in with_evidence], gold, n_relevant))
    span_rows = np.array(
        [chroma_span_scores(retrieved[i], claims[i].evidence) for i in with_evidence]
    ).reshape(-1, 3)
    for j, name in enumerate(("span_recall", "span_precision", "span_iou")):
        per_claim[name] = span_rows[:, j]
    omega = np.array([precision_omega(chunk_arrays, claims[i].evidence) for i in with_evidence])
    budgets = _budget_columns(
        [_distinct(spans[r] for r in row if r >= 0) for row in deep_indices[with_evidence]], gold
    )
    metrics: dict[str, float] = {}
    for name, values in per_claim.items():
        metrics["mrr" if name == "rr" else name] = float(values.mean()) if len(values) else float("nan")
    metrics["precision_omega"] = float(omega.mean()) if len(omega) else float("nan")
    metrics.update({name: float(np.mean(v)) if len(v) else float("nan") for name, v in budgets.items()})
    columns: dict[str, Any] = {}
    for name, values in {**per_claim, **budgets}.items():
        column = np.full(len(claims), np.nan)
        column[with_evidence] = values
        columns[name] = column
    columns["gold_ranks"] = [json.dumps(gold_ranks(retrieved[i], c.evidence)) for i, c in enumerate(claims)]
    return metrics, columns


def _distinct(spans) -> list[Span]:
    """Spans in rank order, each once (expanded neighbours can hand over one passage twice)."""
    return list(dict.fromkeys(spans))


def reader_spans(
    chunks: Sequence[Chunk], pipeline: Pipeline, parent_chunker: Chunker | None, dataset: Dataset
) -> list[Span]:
    """The span the reader receives for each chunk under the pipeline's expansion."""
    if pipeline.expand == "window":
        return window_spans(chunks, pipeline.window)
    if pipeline.expand == "parent":
        if parent_chunker is None:
            raise ValueError("expand parent: give the parent chunker (parent_chunker=...)")
        return parent_spans(chunks, chunk_corpus(parent_chunker, dataset))
    return [c.span for c in chunks]


def received(chunks: Sequence[Chunk], reader: Sequence[Span], dataset: Dataset) -> list[Chunk]:
    """Each chunk as the reader receives it: a chunk of its expansion's span and text, same place in order."""
    corpus = dataset.corpus
    return [
        Chunk.at(
            s.doc_id, c.index, s.start, s.end, corpus[s.doc_id].text[s.start : s.end], None, dict(c.metadata)
        )
        for c, s in zip(chunks, reader, strict=True)
    ]


def _budget_columns(
    ranked: Sequence[Sequence[Span]], gold: Sequence[Sequence[Span]]
) -> dict[str, np.ndarray]:
    """``recall_at_B`` and ``hit_at_B`` per claim for each budget, and ``budget_recall``.

    ``budget_recall`` is the mean recall over the budgets: the selection metric for long documents.
    """
    scores = [budget_scores(r, g, BUDGETS) for r, g in zip(ranked, gold, strict=True)]
    out = {}
    for j, budget in enumerate(BUDGETS):
        out[f"recall_at_{budget}"] = np.array([s["recall"][j] for s in scores])
        out[f"hit_at_{budget}"] = np.array([s["hit"][j] for s in scores])
    out["budget_recall"] = (
        np.mean([out[f"recall_at_{b}"] for b in BUDGETS], axis=0) if scores else np.array([])
    )
    return out


def diagnose(
    claims: Sequence[Claim], chunks: Sequence[Chunk], per_claim: pd.DataFrame, seen: np.ndarray, scope: str
) -> tuple[dict[str, float], list[str]]:
    """The truncation audit and a miss reason for every claim whose evidence was not retrieved.

    ``seen`` is where the embedder stops reading each chunk (:func:`reading_ends`).
    """
    out = truncation_audit(chunks, seen, [s for c in claims for s in c.evidence])
    rows_of_doc: dict[str, list[int]] = {}
    for row, chunk in enumerate(chunks):
        rows_of_doc.setdefault(chunk.doc_id, []).append(row)
    reasons = [""] * len(claims)
    for i, (claim, hit) in enumerate(zip(claims, per_claim["hit"], strict=True)):
        if not claim.evidence or hit != 0:
            continue
        docs = claim.cited_doc_ids if scope == "cited" else tuple(s.doc_id for s in claim.evidence)
        rows = [r for d in dict.fromkeys(docs) for r in rows_of_doc.get(d, [])]
        reasons[i] = miss_reason(claim.evidence, [chunks[r] for r in rows], seen[rows])
    n_evidence = sum(bool(c.evidence) for c in claims)
    for reason in MISS_REASONS:  # shares of the claims with evidence: they add up to 1 - hit
        out[f"miss_{reason}"] = reasons.count(reason) / n_evidence if n_evidence else float("nan")
    return out, reasons
