"""The general verifier against cosine and learned scorers, at the main job's recommendation.

Chunking as `make sweep` recommends it (sentence 300 characters, no overlap), MiniLM int8, k = 5.
- ContractNLI test: claims never used to train, select or tune. The general verifier (shipped, trained
  once on public pairs and ContractNLI dev) reads them with no training; cosine and learned thresholds
  (and the learned model) are fitted out of fold on test claims, as a sweep fits them.
- SciFact: the general verifier was trained without SciFact, so every claim is unseen.
- ``--adapt``: also the general verifier adapted on every ContractNLI dev claim, scoring test; and
  adapted on 400 test claims, cross-fitted by contract (each scored by a fold model that never saw its
  contract), against cosine on the same 400: what a user with a few hundred labels gets.

Intervals resample whole documents (document clusters), not claims. Prints ROC-AUC (supported vs
not), F1 and its lift over calling every claim grounded, three-way accuracy, contradiction F1 and
recall, macro-F1, ContractNLI's AUC within each of its 17 hypotheses, and pairs/second of the int8
verifier on about 128 word pieces (long passages' windows counted as pairs read).

    .venv/bin/python benchmarks/verifier.py [--quick] [--adapt] [--verifier DIR] [--scorers a,b]

``--verifier DIR`` judges with a verifier folder written by ``general_training`` instead of the shipped one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vera_lab import SentenceChunker, load_dataset  # noqa: E402
from vera_lab.data import sample_dataset  # noqa: E402
from vera_lab.data.clusters import document_clusters  # noqa: E402
from vera_lab.embedding import get_embedder  # noqa: E402
from vera_lab.evaluation import evaluate  # noqa: E402
from vera_lab.grounding import GroundingParameters  # noqa: E402
from vera_lab.grounding.general import load_verifier  # noqa: E402
from vera_lab.grounding.verifier import VerifierRecipe, fit_verifier  # noqa: E402
from vera_lab.metrics import roc_auc  # noqa: E402
from vera_lab.metrics.bootstrap import bootstrap_ci, paired_bootstrap  # noqa: E402

CACHE = ROOT / ".cache" / "vera_lab"
SCORERS = ("cosine", "learned", "verifier", "combined")  # combined: verifier and cosine, out of fold


def within_hypothesis_auc(rows) -> float:
    """Mean ROC-AUC over ContractNLI's hypotheses (claim ids end in /nda-N), each with both classes."""
    hypothesis = rows["claim_id"].str.split("/").str[-1]
    aucs = []
    for _, part in rows.groupby(hypothesis):
        y = (part["label"] == "supported").to_numpy()
        if 0 < y.sum() < len(y):
            aucs.append(roc_auc(y, part["score"].to_numpy()))
    return float(np.mean(aucs))


def report(name: str, dataset, verifier, hypotheses: bool, scorers=SCORERS) -> dict:
    chunker = SentenceChunker(size=300, overlap=0)
    embedder = get_embedder("minilm-int8", cache_dir=CACHE)
    clusters = document_clusters(list(dataset.claims))
    out = {}
    print(f"\n{name}: {len(dataset.claims)} claims, {len(set(clusters))} document clusters; sentence 300/0, "
          "minilm-int8, k=5, threshold calibrated out of fold")  # fmt: skip
    header = f"{'scorer':<9} {'ROC-AUC [95% CI]':<24} {'F1':>6} {'trivial':>7} {'lift [95% CI]':<26} "
    header += (
        f"{'contra->grounded':>16} {'contra recall':>13} {'contra F1':>9} {'3-way acc':>9} {'macro-F1':>8}"
    )
    header += f" {'AUC within hyp.':>15}" if hypotheses else ""
    print(header)
    for scorer_name in scorers:
        scorer = GroundingParameters(
            k=5, threshold="calibrate", scope=dataset.scope or "corpus", scorer=scorer_name
        )
        start = time.perf_counter()
        reads = scorer_name in ("verifier", "combined")
        result = evaluate(dataset, chunker, embedder, scorer, verifier if reads else None)
        rows, m = result.per_claim, result.metrics
        auc_ci = bootstrap_ci(rows, "grounding_roc_auc", clusters=clusters)
        lift = paired_bootstrap(rows, rows.assign(grounded=True), "grounding_f1", clusters=clusters)
        contra = result.confusion.get("contradicted", {"grounded": 0, "not_grounded": 0})
        contra_grounded = contra["grounded"] / max(1, sum(contra.values()))
        entry = {
            "roc_auc": m["grounding_roc_auc"], "roc_auc_ci": auc_ci, "f1": m["grounding_f1"],
            "f1_trivial": m["grounding_f1_trivial"], "lift": lift["diff"],
            "lift_ci": [lift["ci_low"], lift["ci_high"]], "contradicted_called_grounded": contra_grounded,
            "contradicted_recall": m.get("verdict_contradicted_recall"),
            "contradicted_f1": m.get("verdict_contradicted_f1"), "accuracy": m.get("verdict_accuracy"),
            "macro_f1": m.get("verdict_macro_f1"),
            "seconds": time.perf_counter() - start,
        }  # fmt: skip
        line = (
            f"{scorer_name:<9} {m['grounding_roc_auc']:.3f} [{auc_ci[0]:.3f}, {auc_ci[1]:.3f}]    "
            f"{m['grounding_f1']:>6.3f} {m['grounding_f1_trivial']:>7.3f} "
            f"{lift['diff']:+.3f} [{lift['ci_low']:+.3f}, {lift['ci_high']:+.3f}]     "
            f"{contra_grounded:>16.3f} "
        )
        line += (
            f"{m['verdict_contradicted_recall']:>13.3f} {m['verdict_contradicted_f1']:>9.3f} "
            f"{m['verdict_accuracy']:>9.3f} {m['verdict_macro_f1']:>8.3f}"
            if entry["macro_f1"] is not None
            else f"{'-':>13} {'-':>9} {'-':>9} {'-':>8}"
        )
        if hypotheses:
            entry["within_hypothesis_auc"] = within_hypothesis_auc(rows)
            line += f" {entry['within_hypothesis_auc']:>15.3f}"
        print(line, flush=True)
        if result.confusion_three_way:
            print("          verdicts by gold label: " + json.dumps(result.confusion_three_way))
        out[scorer_name] = entry
    return out


def pairs_per_second(verifier, dataset, n: int = 600) -> dict:
    """Pairs/s of the int8 verifier on claims with passages cut to about 128 word pieces together."""
    from vera_lab.grounding.general import _pieces

    chunks = [c for doc in list(dataset.corpus)[:40] for c in SentenceChunker(size=500, overlap=0).chunk(doc)]
    claims = [c.text for c in dataset.claims]
    pairs = [(claims[i % len(claims)], chunks[i % len(chunks)].text) for i in range(n)]
    pieces = [len(e.ids) + 3 for e in _pieces().encode_batch([f"{c} {p}" for c, p in pairs])]
    best = min(_timed(lambda: verifier.predict(pairs)) for _ in range(3))
    import torch

    return {"int8_onnx": n / best, "pieces_mean": float(np.mean(pieces)), "threads": torch.get_num_threads()}


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="samples of the claims (a smoke run)")
    parser.add_argument("--adapt", action="store_true", help="also adapt on dev, and on 400 test claims")
    parser.add_argument("--verifier", default="general", help="general (shipped) or a verifier folder")
    parser.add_argument("--scorers", default=",".join(SCORERS), help="comma-separated, from %(default)s")
    args = parser.parse_args()
    scorers = [s for s in args.scorers.split(",") if s]
    test = load_dataset(ROOT / "datasets" / "contractnli-test")
    scifact = load_dataset(ROOT / "datasets" / "scifact")
    if args.quick:
        test = sample_dataset(test, claims=300, seed=0)
        scifact = sample_dataset(scifact, claims=200, distractors=300, seed=0)
    results = {}
    start = time.perf_counter()
    general = load_verifier(args.verifier, CACHE)
    print(
        f"general verifier {general.name}: trained on {general.trained_on} pairs "
        f"in {general.manifest.get('train_seconds', 0) / 60:.1f} min "
        f"({general.manifest.get('torch_threads')} threads); artefact "
        f"{general.manifest['bytes'] / 1e6:.1f} MB"
    )
    results["contractnli_test"] = report("ContractNLI test (general verifier, never trained on test)", test,
                                         general, hypotheses=True, scorers=scorers)  # fmt: skip
    results["scifact"] = report(
        "SciFact (general verifier, trained without SciFact)", scifact, general, False, scorers
    )
    speed = pairs_per_second(general, test)
    print(f"\ngeneral verifier int8, {speed['threads']} threads: {speed['int8_onnx']:.0f} pairs/s at "
          f"{speed['pieces_mean']:.0f} word pieces a pair on average")  # fmt: skip
    if args.adapt:
        dev = load_dataset(ROOT / "datasets" / "contractnli-dev")
        recipe = VerifierRecipe(adapt=True)
        adapted = fit_verifier(list(dev.claims), dev.corpus, recipe, CACHE)
        results["adapted_dev"] = report("ContractNLI test (general verifier adapted on every dev claim)",
                                        test, adapted, hypotheses=True)  # fmt: skip
        few = sample_dataset(load_dataset(ROOT / "datasets" / "contractnli-test"), claims=400, seed=1)
        cross = fit_verifier(list(few.claims), few.corpus, recipe, CACHE)
        title = "400 ContractNLI test claims (adapted on them, cross-fitted by contract)"
        results["adapted_400"] = report(title,
                                        few, cross, hypotheses=True)  # fmt: skip
        for name, fitted in (("dev", adapted), ("400 test claims", cross)):
            seconds = fitted.manifest.get("train_seconds", {})
            print(
                f"adapting on {name}: {sum(seconds.values()) / 60:.1f} min for {len(seconds)} models"
                if seconds
                else f"adapting on {name}: from the cache ({fitted.directory})"
            )
    print(f"benchmark wall time {time.perf_counter() - start:.0f} s")
    results["speed"] = speed


if __name__ == "__main__":
    main()
