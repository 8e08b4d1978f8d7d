"""Train the general verifier once, here, and write the compact artefact that ships with the project.

    python -m vera_lab.grounding.general_training [--out DIR] [--sources a,b,...] [--epochs N]
        [--frozen-layers N] [--snli N] [--mnli N] [--twins] [--device cpu|cuda] [--estimate]

The recipe (sources, caps, seed, optimisation) and the pairs drawn (counts per source and label) are
written beside the weights, so the same command rebuilds the same artefact in one environment (on a
GPU, bfloat16 autocast and its kernels make the last digits differ from one card to another). Only
what training changed is kept (the layers above the frozen ones, the pooler and the head, in float16);
:mod:`vera_lab.grounding.general` rebuilds the network on top of the packaged MiniLM weights. The
claims the recipe holds out are scored at the end: ROC-AUC (supported or not) and three-way accuracy
per source go into the manifest as ``validation``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vera_lab.grounding.cross_encoder import TrainRecipe, trained_tensors
from vera_lab.grounding.general import text_hash
from vera_lab.grounding.pairs import Pair
from vera_lab.grounding.public_pairs import SOURCES, PublicRecipe, data_manifest, public_pairs

# All six layers trained (the embeddings stay MiniLM's): the artefact is 21.6 MB. Chosen on the held-out
# public pairs, never on ContractNLI test or SciFact: ROC-AUC 0.915 against 0.870 with the top two layers
# trained on the same pairs. Three epochs over 57,718 pairs took 194 s on an H100 (--device cuda).
GENERAL_TRAIN = TrainRecipe(epochs=3, batch_size=32, learning_rate=5e-5, frozen_layers=0)
ARTEFACT = Path(__file__).with_name("general_verifier")
WEIGHTS, MANIFEST = "weights.safetensors", "manifest.json"


def seen_documents(data: PublicRecipe) -> list[str]:
    """Short hashes of the bundled datasets' documents training read (ContractNLI dev, SciFact).

    Kept in the manifest so a sweep on those documents knows the general verifier is in sample there.
    """
    from vera_lab.data import load_dataset
    from vera_lab.grounding.public_pairs import DATASETS

    bundled = [s for s in data.sources if s in ("contractnli-dev", "scifact")]
    return sorted({text_hash(doc.text) for s in bundled for doc in load_dataset(DATASETS / s).corpus})


def write_artefact(model, frozen: int, folder: Path, manifest: dict) -> Path:
    """The trained tensors in float16 (safetensors) and the manifest with their sha256."""
    from safetensors.numpy import save_file

    from vera_lab.data import file_sha256

    folder.mkdir(parents=True, exist_ok=True)
    tensors = {n: v.astype(np.float16) for n, v in trained_tensors(model, frozen).items()}
    save_file(tensors, str(folder / WEIGHTS))
    manifest = {**manifest, "weights": WEIGHTS, "sha256": file_sha256(folder / WEIGHTS),
                "bytes": (folder / WEIGHTS).stat().st_size}  # fmt: skip
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return folder / WEIGHTS


def validation(model, pairs: Sequence[Pair], max_length: int, device: str = "cpu") -> dict[str, dict]:
    """Per source (and ``all``) on held-out pairs: pairs, ROC-AUC of P(supported), three-way accuracy.

    Three-way accuracy counts only pairs whose source gives three labels (not "not supported").
    """
    from sklearn.metrics import roc_auc_score

    from vera_lab.grounding.cross_encoder import torch_probabilities
    from vera_lab.grounding.pairs import SUPPORTED
    from vera_lab.grounding.public_pairs import NOT_SUPPORTED

    probs = torch_probabilities(model, [p.claim for p in pairs], [p.passage for p in pairs], max_length,
                                batch_size=128, device=device)  # fmt: skip
    labels = np.array([p.label for p in pairs])
    sources = np.array([p.claim_id.split(":", 1)[0] for p in pairs])
    out = {}
    for source in [*dict.fromkeys(sources), "all"]:
        rows = np.ones(len(pairs), bool) if source == "all" else sources == source
        supported = labels[rows] == SUPPORTED
        three = rows & (labels != NOT_SUPPORTED)
        both = 0 < supported.sum() < rows.sum()
        out[source] = {
            "pairs": int(rows.sum()),
            "roc_auc": round(float(roc_auc_score(supported, probs[rows, 0])), 4) if both else None,
            "accuracy": round(float((probs[three].argmax(1) == labels[three]).mean()), 4)
            if three.any()
            else None,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Draw the pairs, train, validate, write the artefact; the command line's entry."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.device != "cpu":
        import torch

        if not args.device.startswith("cuda") or not torch.cuda.is_available():
            parser.error(f"--device {args.device}: give cpu, or cuda on a machine whose torch sees a GPU "
                         f"(this one: {'yes' if torch.cuda.is_available() else 'no'})")  # fmt: skip
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from vera_lab.data import file_sha256
    from vera_lab.grounding.cross_encoder import train
    from vera_lab.tokens import minilm_dir

    data = PublicRecipe(sources=tuple(s for s in args.sources.split(",") if s), twins=args.twins,
                        snli=args.snli, mnli=args.mnli)  # fmt: skip
    recipe = dataclasses.replace(GENERAL_TRAIN, epochs=args.epochs, frozen_layers=args.frozen_layers,
                                 learning_rate=args.learning_rate)  # fmt: skip
    start = time.perf_counter()
    pairs, held = public_pairs(data)
    if args.limit:
        pairs = [pairs[i] for i in np.random.default_rng(0).permutation(len(pairs))[: args.limit]]
        held = held[: args.limit // 10]
    counts = data_manifest(pairs)
    print(f"general verifier: {len(pairs):,} pairs from {', '.join(counts)}; {len(held):,} held out",
          file=sys.stderr, flush=True)  # fmt: skip
    if args.estimate:
        _print_estimate(pairs, recipe)
        return 0
    model = train(pairs, recipe, desc="general verifier", device=args.device)
    seconds = time.perf_counter() - start
    import torch

    manifest = {
        "data": dataclasses.asdict(data),
        "train": dataclasses.asdict(recipe),
        "pairs": counts,
        "pair_total": len(pairs),
        "base_weights_sha256": file_sha256(minilm_dir() / "model.safetensors"),
        "train_seconds": round(seconds, 1),
        "device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu",
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "validation": validation(model, held, recipe.max_length, args.device),
        "documents": seen_documents(data),
    }
    path = write_artefact(model, recipe.frozen_layers, args.out, manifest)
    print(
        f"general verifier: {path} ({path.stat().st_size / 1e6:.1f} MB) in {seconds / 60:.1f} min; held out: "
        + json.dumps(manifest["validation"]["all"]),
        file=sys.stderr,
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    """The training command's options: the data recipe, the training recipe, the device."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=ARTEFACT, help="folder of the artefact (default: %(default)s)"
    )
    parser.add_argument(
        "--sources",
        default=",".join(PublicRecipe.sources),
        help=f"comma-separated, from {', '.join(SOURCES)} (default: all but scifact)",
    )
    parser.add_argument("--epochs", type=int, default=GENERAL_TRAIN.epochs)
    parser.add_argument(
        "--frozen-layers",
        type=int,
        default=GENERAL_TRAIN.frozen_layers,
        help="MiniLM's lowest N layers keep their weights (default: %(default)s)",
    )
    parser.add_argument("--learning-rate", type=float, default=GENERAL_TRAIN.learning_rate)
    parser.add_argument(
        "--twins", action="store_true", help="add a rule-edited contradicted twin of each supported pair"
    )
    for source in ("snli", "mnli"):
        parser.add_argument(f"--{source}", type=int, default=getattr(PublicRecipe, source),
                            help=f"at most N {source.upper()} pairs (default: %(default)s)")  # fmt: skip
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda: where torch trains")
    parser.add_argument("--limit", type=int, default=0, help="train on the first N pairs only (a smoke run)")
    parser.add_argument(
        "--estimate",
        action="store_true",
        help="time two training steps here and print how long the whole recipe would take",
    )
    return parser


def _print_estimate(pairs, recipe) -> None:
    """How long the whole recipe would take on this machine's CPU, from two timed steps."""
    from vera_lab.grounding.cross_encoder import encode, estimated_seconds

    pieces = sum(
        map(len, encode([p.claim for p in pairs], [p.passage for p in pairs], recipe.max_length).ids)
    )
    sample = [pairs[i] for i in np.random.default_rng(0).permutation(len(pairs))[:128]]
    print(f"general verifier: about {estimated_seconds(recipe, sample, [pieces]) / 3600:.1f} h to train "
          f"on this machine's CPU ({os.cpu_count()} cores)", file=sys.stderr)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
