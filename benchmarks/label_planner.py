"""Does the label planner need fewer labels than random order? A simulation on a finished sweep.

Run: .venv/bin/python benchmarks/label_planner.py [RUN_DIR] [--seeds 10] [--step 20] [--bound]
     (default RUN_DIR results/contractnli: run `make sweep` first. The planner was designed on that
     sweep; for claims it never saw, run `vera-lab sweep sweeps/contractnli-test-final.yaml` or
     `sweeps/scifact.yaml` and pass results/contractnli-test-final or results/scifact)

Every claim's retrieval under every configuration of the final stage is stored; only its label (its
gold evidence, hence its budget recall) is hidden. Starting from 20 random claims, claims are revealed
``step`` at a time, either in random order or in the planner's order (recomputed after each step from
the configurations then in contention: the best and those not significantly worse). After each step
the recommendation is recomputed on the revealed claims exactly as a sweep would (cluster paired
bootstrap, Holm, fewest vectors); the run stops when it is conclusive (at least 100 claims with
evidence in 20 clusters, interval at most 0.2 wide) and equals the recommendation from all labels.
Printed per order: labels needed per seed, and the median. Goal: the planner needs at most half.
Also printed: what `vera-lab plan` would have estimated from the first 20 labels (its labels still
needed, at the revealed share of claims with evidence), to hold against the labels random order needed.

The planner is `vera-lab plan`'s: priority = chance of evidence x sqrt(disagreement of the best with
its cheaper rivals), round-robin over clusters. The chance of evidence is fitted on the claims revealed
so far from the contenders' mean closeness and the claim's words. Closeness is here the stored score
of a cosine scorer taking the max over the top k, which is the closeness `vera-lab plan` computes.

``--bound`` adds the planner told which hidden claims carry evidence (their chance is 1 or 0, the rest
unchanged): how far a better predictor of evidence could take it. No real planner knows this. It also
prints how well the chance of evidence ranks claims (ROC-AUC) after 40, 100 and 200 random labels, with
closeness averaged over the five best configurations, and, against the best configuration cheaper than
the target, on how many claims with evidence their values differ and how well the disagreement of
their contexts predicts which.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vera_lab.labelling.plan import (  # noqa: E402
    context,
    disagreement,
    evidence_probability,
    hardest_rival,
    labels_needed,
    priority,
    rank_candidates,
    rivals_of,
)
from vera_lab.metrics.bootstrap import PER_CLAIM_COLUMN, bootstrap_ci, holm_adjusted, paired_bootstrap  # noqa: E402
from vera_lab.sweep import ResultsStore  # noqa: E402
from vera_lab.sweep.recommend import ALPHA, MAX_CI_WIDTH, MIN_CLAIMS, MIN_CLUSTERS, ranked  # noqa: E402

N_BOOT = 500  # resamples per test in the simulation (a sweep uses 2000): thousands of recomputations


def state(rows: dict, ids: list[str], vectors: dict, metric: str):
    """The recommendation on the revealed claims: (choice, conclusive, contenders: the best first)."""
    sub = {cid: r[r["claim_id"].isin(ids)].reset_index(drop=True) for cid, r in rows.items()}
    first = next(iter(sub.values()))
    column = PER_CLAIM_COLUMN[metric]  # the per-claim value behind the metric (mrr: rr)
    with_evidence = first[column].notna()
    means = {cid: float(r[column].mean()) for cid, r in sub.items()}
    best = max(means, key=lambda c: (means[c], -vectors[c]))
    clusters = first["cluster"].to_numpy()
    others = [c for c in sub if c != best]
    tests = [paired_bootstrap(sub[best], sub[c], metric, n_boot=N_BOOT, clusters=clusters) for c in others]
    adjusted = holm_adjusted([t["p_value"] for t in tests]) if tests else []
    members = [best] + [
        c for c, t, p in zip(others, tests, adjusted, strict=True) if not (p <= ALPHA and t["diff"] > 0)
    ]
    preferred = sorted(members, key=lambda c: (vectors[c], -means[c]))
    choice = preferred[0]
    low, high = bootstrap_ci(sub[choice], metric, n_boot=N_BOOT, clusters=clusters)
    n_clusters = len(set(clusters[with_evidence.to_numpy()]))
    conclusive = (
        int(with_evidence.sum()) >= MIN_CLAIMS and n_clusters >= MIN_CLUSTERS and high - low <= MAX_CI_WIDTH
    )
    cheaper, rivals = rivals_of(preferred, best)
    # what `vera-lab plan` would say: labels still needed, at the revealed share with evidence
    diff, half = hardest_rival([tests[others.index(c)] for c in cheaper], len(sub))
    needed = labels_needed(int(with_evidence.sum()), n_clusters, high - low, diff, half)
    estimate = math.ceil(needed / with_evidence.mean()) if with_evidence.any() else None
    return choice, conclusive, [best, *rivals][:5], estimate


def simulate(
    rows, vectors, metric, target, has_evidence, contexts, closeness, texts, clusters, order, seed, step
):
    """(labels revealed when conclusive and right, labels `vera-lab plan` estimated at the start)."""
    claims = list(next(iter(rows.values()))["claim_id"])
    rng = np.random.default_rng(seed)
    shuffled = [claims[i] for i in rng.permutation(len(claims))]
    revealed, hidden = shuffled[:20], shuffled[20:]
    first_estimate = None
    while hidden:
        choice, conclusive, contenders, estimate = state(rows, revealed, vectors, metric)
        first_estimate = estimate if first_estimate is None else first_estimate
        if conclusive and choice == target:
            return len(revealed), first_estimate
        if order == "random":
            batch = hidden[:step]
        else:
            if order == "evidence known":
                chance = has_evidence[hidden].to_numpy(dtype=float)
            else:
                mean = {c: np.mean([closeness[k][c] for k in contenders]) for c in [*revealed, *hidden]}
                chance = evidence_probability(
                    [(mean[c], texts[c]) for c in revealed],
                    has_evidence[revealed].to_numpy(),
                    [(mean[c], texts[c]) for c in hidden],
                )
            best, rivals = contenders[0], contenders[1:]
            scores = {
                c: priority(p, disagreement(contexts[best][c], [contexts[r][c] for r in rivals]))
                for c, p in zip(hidden, chance, strict=True)
            }
            batch = rank_candidates(scores, clusters)[:step]
        revealed += batch
        hidden = [c for c in hidden if c not in set(batch)]
    return len(revealed), first_estimate


def evidence_auc(closeness, texts, has_evidence, configs, seeds, sizes=(40, 100, 200)) -> dict[int, float]:
    """ROC-AUC of the chance of evidence fitted on ``n`` random labels, on the rest (median over seeds)."""
    from sklearn.metrics import roc_auc_score

    claims = list(has_evidence.index)
    mean = {c: np.mean([closeness[k][c] for k in configs]) for c in claims}
    out = {}
    for n in sizes:
        scores = []
        for seed in range(seeds):
            order = [claims[i] for i in np.random.default_rng(seed).permutation(len(claims))]
            fit, rest = order[:n], order[n:]
            chance = evidence_probability(
                [(mean[c], texts[c]) for c in fit],
                has_evidence[fit].to_numpy(),
                [(mean[c], texts[c]) for c in rest],
            )
            scores.append(roc_auc_score(has_evidence[rest].to_numpy(), chance))
        out[n] = float(np.median(scores))
    return out


def discordance(target_rows, rival_rows, target_contexts, rival_contexts, column) -> tuple[float, float]:
    """Over claims with evidence: the share whose value differs between two configurations, and how well
    their contexts' disagreement predicts that it differs (ROC-AUC)."""
    from sklearn.metrics import roc_auc_score

    a, b = target_rows.set_index("claim_id")[column], rival_rows.set_index("claim_id")[column]
    claims = list(a.index[a.notna()])
    differs = np.array([abs(a[c] - b[c]) > 1e-9 for c in claims])
    split = [disagreement(target_contexts[c], [rival_contexts[c]]) for c in claims]
    return float(differs.mean()), float(roc_auc_score(differs, split))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("run", nargs="?", default=str(ROOT / "results" / "contractnli"))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--step", type=int, default=20)
    parser.add_argument("--bound", action="store_true", help="also: told which claims carry evidence")
    args = parser.parse_args()
    store = ResultsStore(args.run)
    rec = store.read_json("recommendation.json")
    metric = rec["metric"]
    final = ranked(store.rows(), metric, store.read_manifest().get("final_config_ids"))
    final = final[final["param_scorer"] == rec["config"]["scorer"]]
    if rec["config"]["scorer"] != "cosine" or rec["config"].get("aggregate") != "max":
        sys.exit(f"{args.run}: the stored score is closeness only for a cosine scorer taking the max")
    rows = {cid: store.per_claim(cid) for cid in final["config_id"]}
    vectors = dict(zip(final["config_id"], final["cost_n_chunks"], strict=True))
    first = next(iter(rows.values()))
    clusters = dict(zip(first["claim_id"], first["cluster"], strict=True))
    contexts = {
        cid: {c: context(json.loads(s)) for c, s in zip(r["claim_id"], r["retrieved_spans"], strict=True)}
        for cid, r in rows.items()
    }
    closeness = {cid: dict(zip(r["claim_id"], r["score"], strict=True)) for cid, r in rows.items()}
    texts = {c.claim_id: c.text for c in store.dataset().claims}
    print(f"{args.run}: {len(first)} claims, {len(rows)} configurations, target {rec['config_id']} "
          f"({metric}); reveal {args.step} at a time from 20 random claims")  # fmt: skip
    # which claims carry evidence: gold is the same under every configuration
    has_evidence = rows[rec["config_id"]].set_index("claim_id")[PER_CLAIM_COLUMN[metric]].notna()
    needed, estimates = {}, []
    for order in ("random", "planner", *(["evidence known"] if args.bound else [])):
        runs = [
            simulate(
                rows,
                vectors,
                metric,
                rec["config_id"],
                has_evidence,
                contexts,
                closeness,
                texts,
                clusters,
                order,
                seed,
                args.step,
            )
            for seed in range(args.seeds)
        ]
        needed[order] = [n for n, _ in runs]
        if order == "planner":
            estimates = [20 + e for _, e in runs]
        median = np.median(needed[order])
        print(f"  {order:14s} labels until conclusive and right: {needed[order]} (median {median:.0f})")
    print(f"  plan's estimate from the first 20 labels (20 + labels still needed): {estimates} "
          f"(median {np.median(estimates):.0f})")  # fmt: skip
    if args.bound:
        auc = evidence_auc(closeness, texts, has_evidence, list(final["config_id"][:5]), args.seeds)
        print("  chance of evidence, ROC-AUC on the other claims after n random labels (median): "
              + ", ".join(f"n={n} {a:.3f}" for n, a in auc.items()))  # fmt: skip
        means = final.set_index("config_id")[metric]
        cost = vectors[rec["config_id"]]
        rival = max((c for c in rows if vectors[c] < cost), key=lambda c: means[c], default=None)
        if rival:
            share, auc_split = discordance(
                rows[rec["config_id"]], rows[rival], contexts[rec["config_id"]], contexts[rival],
                PER_CLAIM_COLUMN[metric],
            )  # fmt: skip
            print(
                f"  against the best cheaper configuration ({rival}): {metric} differs on {share:.0%} of "
                f"claims with evidence; context disagreement predicts it, ROC-AUC {auc_split:.2f}"
            )
        else:
            print("  no configuration is cheaper than the target")
    for order in list(needed)[1:]:
        ratio = np.median(needed[order]) / np.median(needed["random"])
        print(f"  {order} / random (medians): {ratio:.2f} (goal for the planner: at most 0.50)")


if __name__ == "__main__":
    main()
