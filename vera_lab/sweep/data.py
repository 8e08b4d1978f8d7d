"""The data a sweep runs on: the sampling it applies and a fingerprint of exactly what was used.

A stored result is reused only when the fingerprint matches: the sha256 of both dataset files, the
sampling options, and the document and claim ids the sampling chose.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vera_lab.data import CLAIMS_FILE, CORPUS_FILE, file_sha256, load_dataset, sample_dataset
from vera_lab.types import Dataset


@dataclass(frozen=True)
class Sampling:
    """Which part of a dataset a sweep uses.

    ``claims`` random claims and the documents they need plus ``distractors`` others (all of either
    when None), drawn with ``seed``.
    """

    claims: int | None = None
    distractors: int | None = None
    seed: int = 0

    @classmethod
    def from_config(cls, claims: Mapping[str, Any], corpus: Mapping[str, Any]) -> Sampling:
        """From a sweep definition's ``claims: {sample, seed}`` and ``corpus: {distractors, seed}``."""
        seed = claims.get("seed", corpus.get("seed", 0))
        return cls(claims.get("sample"), corpus.get("distractors"), int(seed))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def apply(self, dataset: Dataset) -> Dataset:
        if self.claims is None and self.distractors is None:
            return dataset
        return sample_dataset(dataset, claims=self.claims, distractors=self.distractors, seed=self.seed)


@functools.lru_cache(maxsize=4)
def prepared_dataset(path: str, sampling: Sampling) -> Dataset:
    """The dataset with the sampling applied (cached per process: workers call it too)."""
    return sampling.apply(load_dataset(path))


def _ids_sha256(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode("utf-8", "surrogatepass")).hexdigest()


def data_record(path: str | Path, sampling: Sampling) -> dict[str, Any]:
    """What a run used: file hashes, sampling, the chosen ids, counts, and the fingerprint of it all."""
    dataset = prepared_dataset(str(path), sampling)
    doc_ids = [d.doc_id for d in dataset.corpus]
    claim_ids = [c.claim_id for c in dataset.claims]
    files = {name: file_sha256(Path(path) / name) for name in (CORPUS_FILE, CLAIMS_FILE)}
    identity = {
        "files": files,
        "sampling": sampling.to_dict(),
        "doc_ids_sha256": _ids_sha256(doc_ids),
        "claim_ids_sha256": _ids_sha256(claim_ids),
    }
    fingerprint = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "fingerprint": fingerprint,
        "path": str(path),
        "name": dataset.name,
        **identity,
        "documents": len(doc_ids),
        "claims": len(claim_ids),
        "labels": dataset.claims.label_counts(),
        "doc_ids": doc_ids,
        "claim_ids": claim_ids,
    }


def describe_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two data records, in words (empty when the fingerprints agree)."""
    if old.get("fingerprint") == new.get("fingerprint"):
        return []
    changes = []
    for name, digest in new["files"].items():
        before = old.get("files", {}).get(name)
        if before != digest:
            changes.append(f"the {name} file changed (sha256 {str(before)[:12]}... -> {digest[:12]}...)")
    if old.get("sampling") != new["sampling"]:
        before, after = old.get("sampling", {}), new["sampling"]
        diffs = [f"{k} {before.get(k)} -> {after[k]}" for k in after if before.get(k) != after[k]]
        changes.append(f"the sampling changed ({', '.join(diffs)})")
    for kind in ("claim", "doc"):
        before, after = set(old.get(f"{kind}_ids", [])), set(new[f"{kind}_ids"])
        if before != after and not changes:  # same files and options, other choice: say how
            changes.append(
                f"the chosen {kind} ids changed ({len(after - before)} added, {len(before - after)} removed)"
            )
    return changes or ["the data fingerprint changed"]
