"""Grounding by the trained verifier against cosine and learned scorers, at the main job's recommendation.

Chunking as `make sweep` recommends it (sentence 300 characters, no overlap), MiniLM int8, k = 5.
- ContractNLI test: claims never used to train, select or tune. The verifier is the model trained on
  every ContractNLI dev claim; the cosine and learned thresholds (and the learned model) are fitted
  out of fold on test claims, as a sweep fits them.
- SciFact: no separate split, so the verifier is cross-fitted: each claim is scored by the fold model
  that never saw its abstracts (claims linked through a shared abstract are one cluster).

Intervals resample whole documents (document clusters), not claims. Prints ROC-AUC (supported vs
not), F1 and its lift over calling every claim grounded, the recall of contradicted claims (three-way
verdict), three-way macro-F1, ContractNLI's AUC within each of its 17 hypotheses, the verifier's
pairs/second (int8 ONNX Runtime vs fp32 PyTorch, same pairs) and its training minutes.

    .venv/bin/python benchmarks/verifier.py [--quick]   # --quick: 300 test claims, 200 SciFact claims
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
from vera_lab.bootstrap import bootstrap_ci, paired_bootstrap  # noqa: E402
from vera_lab.data import sample_dataset  # noqa: E402
from vera_lab.data.clusters import document_clusters  # noqa: E402
from vera_lab.embedding import get_embedder  # noqa: E402
from vera_lab.evaluation import evaluate  # noqa: E402
from vera_lab.grounding import GroundingScorer  # noqa: E402
from vera_lab.grounding.verifier import VerifierRecipe, fit_verifier  # noqa: E402
from vera_lab.metrics import roc_auc  # noqa: E402

CACHE = ROOT / ".cache" / "vera_lab"
SCORERS = ("cosine", "learned", "verifier")


def within_hypothesis_auc(rows) -> float:
    """Mean ROC-AUC over ContractNLI's hypotheses (claim ids end in /nda-N), each with both classes."""
    hypothesis = rows["claim_id"].str.split("/").str[-1]
    aucs = []
    for _, part in rows.groupby(hypothesis):
        y = (part["label"] == "supported").to_numpy()
        if 0 < y.sum() < len(y):
            aucs.append(roc_auc(y, part["score"].to_numpy()))
    return float(np.mean(aucs))


def report(name: str, dataset, verifier, hypotheses: bool) -> dict:
    chunker = SentenceChunker(size=300, overlap=0)
    embedder = get_embedder("minilm-int8", cache_dir=CACHE)
    clusters = document_clusters(list(dataset.claims))
    out = {}
    print(f"\n{name}: {len(dataset.claims)} claims, {len(set(clusters))} document clusters; sentence 300/0, "
          "minilm-int8, k=5, threshold calibrated out of fold")  # fmt: skip
    header = f"{'scorer':<9} {'ROC-AUC [95% CI]':<24} {'F1':>6} {'trivial':>7} {'lift [95% CI]':<26} "
    header += f"{'contra->grounded':>16} {'contra recall':>13} {'macro-F1':>8}"
    header += f" {'AUC within hyp.':>15}" if hypotheses else ""
    print(header)
    for scorer_name in SCORERS:
        scorer = GroundingScorer(
            k=5, threshold="calibrate", scope=dataset.scope or "corpus", scorer=scorer_name
        )
        start = time.perf_counter()
        result = evaluate(dataset, chunker, embedder, scorer, verifier if scorer_name == "verifier" else None)
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
            f"{m['verdict_contradicted_recall']:>13.3f} {m['verdict_macro_f1']:>8.3f}"
            if entry["macro_f1"] is not None
            else f"{'-':>13} {'-':>8}"
        )
        if hypotheses:
            entry["within_hypothesis_auc"] = within_hypothesis_auc(rows)
            line += f" {entry['within_hypothesis_auc']:>15.3f}"
        print(line, flush=True)
        if result.confusion_three_way:
            print("          verdicts by gold label: " + json.dumps(result.confusion_three_way))
            print(f"          word pieces past the verifier's {verifier.recipe.train.max_length}: "
                  f"{m['verifier_truncated_share']:.3f} of claims")  # fmt: skip
        out[scorer_name] = entry
    return out


def pairs_per_second(verifier, dataset, n: int = 600) -> dict:
    """The verifier's throughput on claim + sentence-300 chunk pairs: int8 ONNX vs fp32 PyTorch."""
    import torch

    from vera_lab.grounding.cross_encoder import _padded, encode, new_model

    chunks = [c for doc in list(dataset.corpus)[:40] for c in SentenceChunker(size=300, overlap=0).chunk(doc)]
    claims = [c.text for c in dataset.claims]
    pairs = [(claims[i % len(claims)], chunks[i % len(chunks)].text) for i in range(n)]
    session = verifier.session("all")
    best_int8 = min(_timed(lambda: session.probabilities(*zip(*pairs, strict=True))) for _ in range(3))
    model = new_model(verifier.recipe.train.layers, 0).eval()
    encoded = encode(*zip(*pairs, strict=True), verifier.recipe.train.max_length)
    order = np.argsort([len(i) for i in encoded.ids])

    def torch_run():
        with torch.no_grad():
            for lo in range(0, n, 32):
                batch = {k: torch.from_numpy(v) for k, v in _padded(encoded, order[lo : lo + 32]).items()}
                model(**batch)

    best_fp32 = min(_timed(torch_run) for _ in range(3))
    return {"int8_onnx": n / best_int8, "fp32_torch": n / best_fp32, "threads": torch.get_num_threads()}


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="samples of the claims (a smoke run)")
    args = parser.parse_args()
    recipe = VerifierRecipe()
    dev = load_dataset(ROOT / "datasets" / "contractnli-dev")
    test = load_dataset(ROOT / "datasets" / "contractnli-test")
    scifact = load_dataset(ROOT / "datasets" / "scifact")
    if args.quick:
        test = sample_dataset(test, claims=300, seed=0)
        scifact = sample_dataset(scifact, claims=200, distractors=300, seed=0)
    results = {}
    start = time.perf_counter()
    trained_on_dev = fit_verifier(list(dev.claims), dev.corpus, recipe, CACHE)
    results["contractnli_test"] = report("ContractNLI test (verifier trained on ContractNLI dev)", test,
                                         trained_on_dev, hypotheses=True)  # fmt: skip
    cross_fitted = fit_verifier(list(scifact.claims), scifact.corpus, recipe, CACHE)
    results["scifact"] = report("SciFact (verifier cross-fitted by abstract)", scifact, cross_fitted, False)
    speed = pairs_per_second(trained_on_dev, test)
    print(f"\nverifier pairs/s on claim + sentence-300 chunk pairs, {speed['threads']} threads: int8 ONNX "
          f"{speed['int8_onnx']:.0f}, fp32 PyTorch {speed['fp32_torch']:.0f} "
          f"({speed['int8_onnx'] / speed['fp32_torch']:.2f}x)")  # fmt: skip
    for name, fitted in (("ContractNLI dev", trained_on_dev), ("SciFact", cross_fitted)):
        seconds = fitted.manifest.get("train_seconds", {})
        pairs = {n: sum(c.values()) for n, c in fitted.manifest.get("pairs", {}).items()}
        print(f"training on {name}: {sum(seconds.values()) / 60:.1f} min for {len(seconds)} models "
              f"({json.dumps(pairs)} pairs; estimated before training: "
              f"{fitted.manifest.get('estimated_seconds', 0) / 60:.1f} min)"
              if seconds else f"training on {name}: from the cache ({fitted.directory})")  # fmt: skip
    print(f"benchmark wall time {time.perf_counter() - start:.0f} s")
    results["speed"] = speed


if __name__ == "__main__":
    main()
