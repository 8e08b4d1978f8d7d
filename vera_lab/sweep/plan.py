"""Which claims to label next: those on which the leading configurations disagree, spread over clusters.

A label settles a comparison only where the configurations in contention hand the reader different
text: where they retrieve the same passages, any label moves them alike. So a candidate claim (no
label needed) is scored by how differently the leading configurations fill the same context budget:
one minus the mean pairwise overlap (characters in common over characters in either) of their first
``budget`` characters. Candidates are ranked by that disagreement and taken round-robin over clusters
of documents, so no single document soaks up the labels; intervals resample clusters, and a new
cluster narrows them more than another claim of a known one.

:func:`labels_needed` says roughly how many more labelled claims would make a sweep conclusive, from
the intervals it has now (a width shrinks with the square root of the clusters).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vera_lab.metrics import union
from vera_lab.sweep.recommend import MAX_CI_WIDTH, MIN_CLAIMS, MIN_CLUSTERS
from vera_lab.types import Claim

BUDGET = 1000  # characters of retrieved context compared between configurations


def context(spans: Sequence[Sequence[Any]], budget: int = BUDGET) -> dict[str, list[tuple[int, int]]]:
    """The first ``budget`` characters of ranked ``[doc_id, start, end]`` spans, as merged intervals."""
    taken: dict[str, list[tuple[int, int]]] = {}
    left = budget
    for doc_id, start, end in spans:
        if left <= 0:
            break
        take = min(end - start, left)
        taken.setdefault(doc_id, []).append((start, start + take))
        left -= take
    return {d: union(v) for d, v in taken.items()}


def _length(intervals: Mapping[str, list[tuple[int, int]]]) -> int:
    return sum(e - s for v in intervals.values() for s, e in v)


def overlap(a: Mapping[str, list[tuple[int, int]]], b: Mapping[str, list[tuple[int, int]]]) -> float:
    """Characters two contexts share over characters in either (1 for two empty contexts)."""
    shared = 0
    for doc_id, spans in a.items():
        for s, e in spans:
            shared += sum(max(0, min(e, e2) - max(s, s2)) for s2, e2 in b.get(doc_id, ()))
    either = _length(a) + _length(b) - shared
    return shared / either if either else 1.0


def disagreement(contexts: Sequence[Mapping[str, list[tuple[int, int]]]]) -> float:
    """One minus the mean pairwise overlap of the contexts several configurations hand over."""
    pairs = list(itertools.combinations(contexts, 2))
    return 1.0 - float(np.mean([overlap(a, b) for a, b in pairs])) if pairs else 0.0


def rank_candidates(scores: Mapping[str, float], clusters: Mapping[str, Any]) -> list[str]:
    """Claim ids, most disagreement first, taken round-robin over clusters (ties: claim id)."""
    by_cluster: dict[Any, list[str]] = {}
    for claim_id in sorted(scores, key=lambda c: (-scores[c], c)):
        by_cluster.setdefault(clusters[claim_id], []).append(claim_id)
    queues = sorted(by_cluster.values(), key=lambda q: (-scores[q[0]], q[0]))
    out: list[str] = []
    for layer in itertools.zip_longest(*queues):
        out += sorted((c for c in layer if c is not None), key=lambda c: (-scores[c], c))
    return out


def labels_needed(claims_with_evidence: int, clusters: int, ci_width: float, diff: float | None,
                  diff_ci_half: float | None) -> int:  # fmt: skip
    """Roughly how many more labelled claims make a sweep conclusive (0 when it is).

    The larger of: the recommendation's minimum counts; the claims that shrink the metric's interval
    under its maximum width; and, when the best and the runner-up differ, the claims that would make
    that difference significant. Widths shrink with the square root of the claims (of clusters, in
    proportion): a rough rule, said as one.
    """
    per_cluster = claims_with_evidence / max(clusters, 1)
    needed = [MIN_CLAIMS - claims_with_evidence, math.ceil((MIN_CLUSTERS - clusters) * per_cluster)]
    if ci_width > MAX_CI_WIDTH:
        needed.append(math.ceil(claims_with_evidence * ((ci_width / MAX_CI_WIDTH) ** 2 - 1)))
    if diff and diff_ci_half and diff_ci_half > abs(diff):
        needed.append(math.ceil(claims_with_evidence * ((diff_ci_half / abs(diff)) ** 2 - 1)))
    return max(0, *needed)


def read_candidates(path: str | Path) -> list[Claim]:
    """Claims to rank: a CSV or JSONL with ``claim_id``, ``claim`` and ``doc`` (labels not needed)."""
    import csv
    import json

    path = Path(path)
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            if path.suffix.lower() == ".csv":
                records = list(csv.DictReader(handle))
            else:
                records = [json.loads(line) for line in handle if line.strip()]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the candidate claims ({exc})") from None
    out, seen = [], set()
    for line, record in enumerate(records, 2 if path.suffix.lower() == ".csv" else 1):
        missing = [k for k in ("claim_id", "claim", "doc") if not str(record.get(k) or "").strip()]
        if missing:
            raise ValueError(
                f"{path}:{line}: missing {', '.join(missing)} (claim_id, claim and doc are needed)"
            )
        if record["claim_id"] in seen:  # a claim quoted on several rows is one candidate
            continue
        seen.add(record["claim_id"])
        out.append(
            Claim(str(record["claim_id"]), str(record["claim"]), "unsupported", (), (str(record["doc"]),))
        )
    return out


def plan_labels(
    store, candidates: Sequence[Claim], cache_dir: str | Path, contenders: int = 5
) -> dict[str, Any]:
    """Rank ``candidates`` for labelling against a finished sweep's leading configurations.

    Returns the ranked claim ids with their disagreement and cluster, the contenders compared, and
    :func:`labels_needed` from the sweep's own figures.
    """
    from vera_lab.data.clusters import claim_clusters
    from vera_lab.evaluation import chunk_corpus, reader_spans
    from vera_lab.resources import cached_embedder, with_resources
    from vera_lab.retrieval import Index, indexed_texts, rank
    from vera_lab.retrieval.lexical import BM25
    from vera_lab.types import ClaimSet, Dataset

    rec = store.read_json("recommendation.json")
    if "config_id" not in rec:
        raise ValueError(f"{store.dir}: no recommendation yet; finish the sweep first")
    dataset = store.dataset()
    unknown = [c.claim_id for c in candidates if c.cited_doc_ids[0] not in dataset.corpus]
    if unknown:
        raise ValueError(
            f"candidate {unknown[0]}: its doc is not in the sweep's corpus ({len(unknown)} such)"
        )
    ids = [rec["config_id"], *(c for c in rec["indistinguishable"] if c != rec["config_id"])][:contenders]
    data = Dataset(
        dataset.name, dataset.corpus, ClaimSet(tuple(candidates)), dataset.scope, dataset.cluster_by
    )
    contexts: dict[str, list] = {c.claim_id: [] for c in candidates}
    for config_id in ids:
        point = store.point(config_id)
        chunks = chunk_corpus(with_resources(point.make_chunker(), str(cache_dir)), data)
        texts = indexed_texts(chunks, data.corpus, point.pipeline.context)
        embedder = cached_embedder(point.embedder, str(cache_dir))
        if embedder.fits_corpus:
            embedder.fit(texts)
        index = Index(embedder.embed(texts), [c.doc_id for c in chunks])
        lexical = BM25(texts, [c.doc_id for c in chunks]) if point.pipeline.lexical else None
        reader = reader_spans(chunks, point.pipeline, point.parent_chunker(), data)
        allowed = [c.cited_doc_ids for c in candidates] if point.scope == "cited" else None
        queries = embedder.embed([c.text for c in candidates])
        hits = rank(
            point.pipeline, max(point.k, 20), queries, index, [c.text for c in candidates], lexical, allowed
        )
        for claim, row in zip(candidates, hits.indices, strict=True):
            spans = [[reader[r].doc_id, reader[r].start, reader[r].end] for r in row if r >= 0]
            contexts[claim.claim_id].append(context(spans))
    scores = {cid: disagreement(v) for cid, v in contexts.items()}
    cluster_of = dict(
        zip([c.claim_id for c in candidates], claim_clusters(candidates, "document"), strict=True)
    )
    order = rank_candidates(scores, cluster_of)
    low, high = rec["ci_95"]
    sampled = rec.get("resampling", {})
    return {
        "contenders": ids,
        "ranked": [{"claim_id": c, "disagreement": scores[c], "cluster": int(cluster_of[c])} for c in order],
        "labels_needed": labels_needed(
            rec["n_claims_with_evidence"],
            sampled.get("clusters", 0),
            (high - low) if low is not None else 0.0,
            None,
            None,
        ),  # fmt: skip
    }
