"""Train the general verifier once, here, and write the compact artefact that ships with the project.

    python -m vera_lab.grounding.general_training [--out DIR] [--sources a,b,...] [--epochs N]

The recipe (sources, caps, seed, optimisation) and the pairs drawn (counts per source and label) are
written beside the weights, so the same command rebuilds the same artefact in one environment. Only
what training changed is kept (the layers above the frozen ones, the pooler and the head, in float16);
:mod:`vera_lab.grounding.general` rebuilds the network on top of the packaged MiniLM weights.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from vera_lab.grounding.cross_encoder import TrainRecipe, trained_tensors
from vera_lab.grounding.general import text_hash
from vera_lab.grounding.public_pairs import SOURCES, PublicRecipe, data_manifest, public_pairs

# Two layers trained over four frozen ones: the frozen layers' output is computed once per pair, so
# three epochs over ~35,000 pairs take about 25 minutes on 2 cores and the artefact is 7 MB.
GENERAL_TRAIN = TrainRecipe(epochs=3, batch_size=32, learning_rate=1e-4, frozen_layers=4)
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


def main(argv: list[str] | None = None) -> int:
    """Draw the pairs, train, write the artefact; the command line's entry."""
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
    parser.add_argument("--limit", type=int, default=0, help="train on the first N pairs only (a smoke run)")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from vera_lab.data import file_sha256
    from vera_lab.grounding.cross_encoder import train
    from vera_lab.tokens import minilm_dir

    data = PublicRecipe(sources=tuple(s for s in args.sources.split(",") if s))
    recipe = dataclasses.replace(GENERAL_TRAIN, epochs=args.epochs)
    start = time.perf_counter()
    pairs = public_pairs(data)
    if args.limit:
        pairs = [pairs[i] for i in np.random.default_rng(0).permutation(len(pairs))[: args.limit]]
    counts = data_manifest(pairs)
    print(f"general verifier: {len(pairs):,} pairs from {', '.join(counts)}", file=sys.stderr, flush=True)
    model = train(pairs, recipe, desc="general verifier")
    seconds = time.perf_counter() - start
    import torch

    manifest = {
        "data": dataclasses.asdict(data),
        "train": dataclasses.asdict(recipe),
        "pairs": counts,
        "pair_total": len(pairs),
        "base_weights_sha256": file_sha256(minilm_dir() / "model.safetensors"),
        "train_seconds": round(seconds, 1),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "documents": seen_documents(data),
    }
    path = write_artefact(model, recipe.frozen_layers, args.out, manifest)
    print(
        f"general verifier: {path} ({path.stat().st_size / 1e6:.1f} MB) in {seconds / 60:.1f} min",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
