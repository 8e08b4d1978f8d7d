"""Which claims to label next: those likely to carry evidence on which the contenders disagree.

A label settles a comparison only where it can move one configuration more than another:
- a claim without gold evidence is left out of every retrieval metric, so its label moves nothing;
  how likely a candidate is to carry evidence is learnt from the sweep's labelled claims (a logistic
  fit on how close the contenders' best chunk is to the claim, on how strongly the general verifier
  finds the best configuration's chunks to speak of it, and on the claim's words);
- where the contenders retrieve the same passages, any label moves them alike. Disagreement is one
  minus the mean overlap (characters in common over characters in either) between the best
  configuration's first ``budget`` characters and each rival's. Rivals are the indistinguishable
  configurations the rule would prefer to the best (cheaper ones): the choice turns on them; without
  any, the other indistinguishable ones.

A candidate's priority is the chance it carries evidence times the square root of the disagreement (it
gates more than it ranks: on ContractNLI dev, how much sentence 300's and recursive 1000's contexts
differ predicts whether their budget recall differs only weakly, ROC-AUC 0.59, and it differs on 90%
of claims with evidence: ``benchmarks/label_planner.py --bound``). Candidates are taken
round-robin over clusters of documents, so no single document soaks up the labels; intervals resample
clusters.

The order is chosen, not random: a sweep over planned labels measures the configurations on the
claims that separate them. Confirm the choice on held-out claims (``--holdout``) before quoting its
figure for the whole collection.

:func:`labels_needed` says roughly how many more labelled claims would make a sweep conclusive and
show the cheaper rival hardest to tell from the best worse, from the intervals it has now (a width
shrinks with the square root of the clusters). From 20 labels it is an order of magnitude, not a count
(``benchmarks/label_planner.py`` prints it beside the labels random order needed).

Where the planner falls short, the chance of evidence is the weak part: told which claims carry
evidence, it needs 0.53 of random order's labels on ContractNLI test and 0.75 on SciFact, against 0.71
and 0.88 with the fitted chance (``benchmarks/label_planner.py --bound``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vera_lab.metrics import union
from vera_lab.sweep.recommend import ALPHA, MAX_CI_WIDTH, MIN_CLAIMS, MIN_CLUSTERS, by_preference
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


def disagreement(best: Mapping[str, list[tuple[int, int]]], rivals: Sequence[Mapping]) -> float:
    """One minus the mean overlap of the best configuration's context with each rival's.

    Without rivals it is 1: only the interval's width and the counts are left to settle, and any
    label with evidence helps.
    """
    return 1.0 - float(np.mean([overlap(best, r) for r in rivals])) if rivals else 1.0


def rivals_of(preferred: Sequence[str], best: str) -> tuple[list[str], list[str]]:
    """(cheaper, rivals) of the best among indistinguishable configurations in the rule's order.

    The cheaper ones are those the rule prefers to the best: the choice turns on them. Without any,
    the rivals are the other members.
    """
    cheaper = list(preferred[: list(preferred).index(best)])
    return cheaper, cheaper or [c for c in preferred if c != best]


def evidence_probability(
    labelled: Sequence[tuple],
    has_evidence: Sequence[bool],
    candidates: Sequence[tuple],
) -> np.ndarray:
    """The chance each candidate carries gold evidence, from its (closeness, [relevance,] claim text).

    A logistic fit on the labelled claims, from how close the retrieved chunks are and, when given,
    how strongly the general verifier finds them to speak of the claim (both standardised), and the
    claim's words (tf-idf: claims worded alike, such as one question asked of many documents, carry
    evidence alike). With fewer than 5 of either kind there is nothing to fit, and every candidate gets
    the labelled share (1 when none are labelled).
    """
    y = np.asarray(has_evidence, dtype=bool)
    if min(int(y.sum()), int((~y).sum())) < 5:
        return np.full(len(candidates), float(y.mean()) if y.size else 1.0)
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    numbers = [f"x{i}" for i in range(len(labelled[0]) - 1)]

    def table(rows: Sequence[tuple]) -> pd.DataFrame:
        return pd.DataFrame(list(rows), columns=[*numbers, "text"])

    features = ColumnTransformer(
        [("closeness", StandardScaler(), numbers), ("words", TfidfVectorizer(), "text")]
    )
    model = make_pipeline(features, LogisticRegression()).fit(table(labelled), y)
    return model.predict_proba(table(candidates))[:, 1]


def verifier_relevance(claims: Sequence[str], passages: Sequence[Sequence[str]], cache_dir) -> np.ndarray:
    """Per claim, how surely the general verifier finds a passage speaks of it: max 1 - P(not mentioned)."""
    from vera_lab.grounding.general import load_verifier

    verifier = load_verifier("general", cache_dir)
    flat = [(c, p) for c, ps in zip(claims, passages, strict=True) for p in ps]
    probs = verifier.predict(flat, progress=True)
    out, at = np.zeros(len(claims)), 0
    for i, ps in enumerate(passages):
        out[i] = float((1 - probs[at : at + len(ps), 2]).max()) if ps else 0.0
        at += len(ps)
    return out


def priority(p_evidence: float, split: float) -> float:
    """How much a label is worth: its chance of evidence times the square root of its disagreement."""
    return float(p_evidence) * math.sqrt(max(0.0, split))


def rank_candidates(scores: Mapping[str, float], clusters: Mapping[str, Any]) -> list[str]:
    """Claim ids, highest score (priority) first, taken round-robin over clusters (ties: claim id)."""
    by_cluster: dict[Any, list[str]] = {}
    for claim_id in sorted(scores, key=lambda c: (-scores[c], c)):
        by_cluster.setdefault(clusters[claim_id], []).append(claim_id)
    queues = sorted(by_cluster.values(), key=lambda q: (-scores[q[0]], q[0]))
    out: list[str] = []
    for layer in itertools.zip_longest(*queues):
        out += sorted((c for c in layer if c is not None), key=lambda c: (-scores[c], c))
    return out


# Separating the best from a rival would take more than this many times the claims labelled so far:
# the two are tied for practical purposes (the estimate grows with 1 / difference squared).
TIED_FACTOR = 10


def labels_needed(claims_with_evidence: int, clusters: int, ci_width: float, diff: float | None,
                  diff_ci_half: float | None) -> int:  # fmt: skip
    """Roughly how many more labelled claims make a sweep conclusive (0 when it is).

    The larger of: the recommendation's minimum counts; the claims that shrink the metric's interval
    under its maximum width; and, given a cheaper rival not yet shown worse than the best (its
    difference ``diff`` and interval half-width, see :func:`hardest_rival`), the claims that would show
    it, if the difference is real. Widths shrink with the square root of the claims (of clusters, in
    proportion): a rough rule, said as one.
    """
    per_cluster = claims_with_evidence / max(clusters, 1)
    needed = [MIN_CLAIMS - claims_with_evidence, math.ceil((MIN_CLUSTERS - clusters) * per_cluster)]
    if ci_width > MAX_CI_WIDTH:
        needed.append(math.ceil(claims_with_evidence * ((ci_width / MAX_CI_WIDTH) ** 2 - 1)))
    if diff and diff_ci_half and diff_ci_half > abs(diff):
        needed.append(math.ceil(claims_with_evidence * ((diff_ci_half / abs(diff)) ** 2 - 1)))
    return max(0, *needed)


def needed_or_tied(claims_with_evidence: int, clusters: int, ci_width: float, diff: float | None,
                   diff_ci_half: float | None) -> tuple[int, dict[str, float] | None]:  # fmt: skip
    """:func:`labels_needed`, or a tie when separating the rival would take too many labels.

    Past ``TIED_FACTOR`` times the claims labelled so far, the difference decides nothing a user would
    notice: the tie is returned with the difference and that count, and the labels needed are what
    the other criteria ask.
    """
    needed = labels_needed(claims_with_evidence, clusters, ci_width, diff, diff_ci_half)
    others = labels_needed(claims_with_evidence, clusters, ci_width, None, None)
    if needed == others or needed <= TIED_FACTOR * max(claims_with_evidence, 1):
        return needed, None  # the rival decides nothing, or is within reach
    return others, {"difference": diff, "labels_to_separate": needed}


def hardest_rival(
    comparisons: Sequence[Mapping[str, float]], n_compared: int
) -> tuple[float | None, float | None]:
    """The cheaper rival hardest to tell from the best: its difference and interval half-width.

    The half-width is widened from 95% to Bonferroni's level over the rivals compared (Holm's first
    step): the rival is shown worse once it shrinks under the difference. ``(None, None)`` without a
    cheaper rival. A cheaper rival not significantly worse is the choice; more labels may show it
    worse, and change the choice.
    """
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - ALPHA / (2 * max(1, n_compared - 1))) / NormalDist().inv_cdf(1 - ALPHA / 2)
    worst = None
    for c in comparisons:
        if c["diff"] > 0:  # a rival as good as the best cannot be shown worse
            ratio = (c["ci_high"] - c["ci_low"]) / 2 * z / c["diff"]
            if worst is None or ratio > worst[0]:
                worst = (ratio, c["diff"], (c["ci_high"] - c["ci_low"]) / 2 * z)
    return (worst[1], worst[2]) if worst else (None, None)


def _records(path: Path) -> list[dict[str, Any]]:
    import csv
    import json

    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            if path.suffix.lower() == ".csv":
                return list(csv.DictReader(handle))
            return [json.loads(line) for line in handle if line.strip()]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the candidate claims ({exc})") from None


def read_candidates(path: str | Path) -> list[Claim]:
    """Claims to rank: a CSV or JSONL with ``claim_id``, ``claim`` and ``doc`` (labels not needed)."""
    path = Path(path)
    records = _records(path)
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


PLAN_COLUMNS = ("claim_id", "claim", "label", "doc", "evidence", "status", "plan_rank", "priority",
                "p_evidence", "disagreement")  # fmt: skip


def write_plan(candidates_path: str | Path, ranked: Sequence[Mapping[str, Any]], out: str | Path) -> Path:
    """The candidates' rows in plan order as a claims CSV to fill in from the top.

    Rows keep what they had (a draft's label, quote and status; any other column after the plan's);
    a row without a status says ``to label``. Every row of a claim quoted on several rows moves with it.
    """
    import csv
    import io

    from vera_lab.data import atomic_write
    from vera_lab.data.spreadsheet import safe_row

    out = Path(out)
    if out.suffix.lower() != ".csv":
        raise ValueError(f"{out}: the plan is written as a .csv file")
    records = _records(Path(candidates_path))
    rows: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        rows.setdefault(str(record["claim_id"]), []).append(record)
    extra = list(dict.fromkeys(k for r in records for k in r if k not in PLAN_COLUMNS))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=[*PLAN_COLUMNS, *extra], extrasaction="ignore")
    writer.writeheader()
    for n, item in enumerate(ranked, 1):
        plan = {"plan_rank": n, **{k: f"{item[k]:.3f}" for k in ("priority", "p_evidence", "disagreement")}}
        for record in rows[item["claim_id"]]:
            writer.writerow(safe_row({**record, "status": record.get("status") or "to label", **plan}))
    atomic_write(out, buffer.getvalue())
    return out


def plan_labels(
    store, candidates: Sequence[Claim], cache_dir: str | Path, contenders: int = 5
) -> dict[str, Any]:
    """Rank ``candidates`` for labelling against a finished sweep's best configuration and its rivals.

    Returns the ranked claim ids with their priority, chance of evidence, disagreement and cluster, the
    configurations compared (the best first), :func:`labels_needed` from the sweep's own figures (claims
    with evidence), and the labels to write for them at the share of labelled claims with evidence.
    """
    from vera_lab.data.clusters import claim_clusters

    rec = store.read_json("recommendation.json")
    if "config_id" not in rec:
        raise ValueError(f"{store.dir}: no recommendation yet; finish the sweep first")
    dataset = store.dataset()
    unknown = [c.claim_id for c in candidates if c.cited_doc_ids[0] not in dataset.corpus]
    if unknown:
        raise ValueError(
            f"candidate {unknown[0]}: its doc is not in the sweep's corpus ({len(unknown)} such)"
        )
    best = rec.get("best_by_metric", {}).get("config_id", rec["config_id"])
    members = store.rows().set_index("config_id").loc[rec["indistinguishable"]].reset_index()
    order = list(by_preference(members, rec["metric"], rec.get("prefer", "fewest_vectors"))["config_id"])
    cheaper, rivals = rivals_of(order, best)
    ids = [best, *rivals][:contenders]
    labelled = list(dataset.claims.claims)
    queried = [*candidates, *labelled]  # the labelled claims teach how often evidence goes with closeness
    texts = [c.text for c in queried]
    closeness, contexts, relevance = _read_by_contenders(store, ids, dataset, candidates, queried, cache_dir)
    mean_closeness = np.where(np.isfinite(closeness), closeness, 0.0).mean(axis=0)
    n = len(candidates)
    chance = evidence_probability(
        list(zip(mean_closeness[n:], relevance[n:], texts[n:], strict=True)),
        [bool(c.evidence) for c in labelled],
        list(zip(mean_closeness[:n], relevance[:n], texts[:n], strict=True)),
    )
    split = {cid: disagreement(v[0], v[1:]) for cid, v in contexts.items()}
    chance_of = dict(zip(contexts, chance.tolist(), strict=True))
    scores = {cid: priority(chance_of[cid], split[cid]) for cid in contexts}
    cluster_of = dict(
        zip([c.claim_id for c in candidates], claim_clusters(candidates, "document"), strict=True)
    )
    needed, tied = _labels_needed(rec, cheaper)
    share = sum(bool(c.evidence) for c in labelled) / len(labelled) if labelled else 0.0
    ranked = [{"claim_id": c, "priority": scores[c], "p_evidence": chance_of[c], "disagreement": split[c],
               "cluster": int(cluster_of[c])} for c in rank_candidates(scores, cluster_of)]  # fmt: skip
    return {
        "contenders": ids,
        "ranked": ranked,
        "labels_needed": needed,
        "tied": tied,
        "evidence_share": share,
        # labels to write for that many with evidence, at the share of labelled claims carrying it
        "labels_to_write": math.ceil(needed / share) if share else None,
    }


def _read_by_contenders(store, ids, dataset, candidates, queried, cache_dir):
    """What each contender reads: its closeness to every queried claim and its context per candidate.

    Also the general verifier's relevance of the best contender's chunks (the first of ``ids``).
    """
    from vera_lab.evaluation import chunk_corpus, reader_spans
    from vera_lab.evaluation.resources import cached_embedder, with_resources
    from vera_lab.retrieval import SearchIndex, similarities

    texts = [c.text for c in queried]
    contexts: dict[str, list] = {c.claim_id: [] for c in candidates}
    closeness = np.zeros((len(ids), len(queried)))
    for n, config_id in enumerate(ids):
        point = store.point(config_id)
        chunks = chunk_corpus(with_resources(point.make_chunker(), str(cache_dir)), dataset)
        embedder = cached_embedder(point.embedder, str(cache_dir))
        search = SearchIndex.build(chunks, dataset.corpus, point.pipeline, embedder)
        reader = reader_spans(chunks, point.pipeline, point.parent_chunker(), dataset)
        allowed = [c.cited_doc_ids for c in queried] if point.scope == "cited" else None
        queries = embedder.embed(texts)
        hits = search.rank(queries, texts, max(point.k, 20), allowed)
        closeness[n] = similarities(queries, search.vectors, hits.indices[:, : point.k]).max(axis=1)
        for claim, row in zip(candidates, hits.indices[: len(candidates)], strict=True):
            spans = [[reader[r].doc_id, reader[r].start, reader[r].end] for r in row if r >= 0]
            contexts[claim.claim_id].append(context(spans))
        if n == 0:  # the best configuration's chunks, as the general verifier reads them
            relevance = verifier_relevance(texts, [[chunks[r].text for r in row[: point.k] if r >= 0]
                                                   for row in hits.indices], cache_dir)  # fmt: skip
    return closeness, contexts, relevance


def _labels_needed(rec: dict, cheaper: Sequence[str]) -> tuple[int, bool]:
    """Claims with evidence that would separate the choice from its hardest cheaper rival.

    Also whether that many means the two are tied.
    """
    low, high = rec["ci_95"]
    comparisons = rec.get("comparisons_with_best", {})
    diff, half = hardest_rival(
        [comparisons[c] for c in cheaper if c in comparisons], rec.get("n_compared", 2)
    )
    width = (high - low) if low is not None else 0.0
    clusters = rec.get("resampling", {}).get("clusters", 0)
    return needed_or_tied(rec["n_claims_with_evidence"], clusters, width, diff, half)
