"""The data a sweep runs on: the sampling it applies and a fingerprint of exactly what was used.

A stored result is reused only when the fingerprint matches: the sha256 of both dataset files, the
sampling options, and the document and claim ids the sampling chose.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vera_lab.data import CLAIMS_FILE, CORPUS_FILE, file_sha256, load_dataset, load_metadata, sample_dataset
from vera_lab.data.clusters import claim_clusters
from vera_lab.language import document_language
from vera_lab.types import Claim, ClaimSet, Dataset


@dataclass(frozen=True)
class Sampling:
    """Which part of a dataset a sweep uses.

    ``claims`` random claims and the documents they need plus ``distractors`` others (all of either
    when None), drawn with ``seed``.
    """

    claims: int | None = None
    distractors: int | None = None
    seed: int = 0
    holdout: float = 0.0  # share of claims set aside for confirming the choice
    documents: int | None = None  # a random sample of documents and the claims about them alone
    part: str = "selection"  # with a holdout: "selection" (the sweep) or "holdout" (the confirmation)

    def __post_init__(self) -> None:
        counts = (("claims: sample", self.claims, 1), ("corpus: distractors", self.distractors, 0),
                  ("documents", self.documents, 1))  # fmt: skip
        for key, value, least in counts:
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
                raise ValueError(f"{key} {value!r}: a whole number >= {least}, or leave it out for all")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"seed {self.seed!r}: a whole number")
        if not 0 <= self.holdout < 1:
            raise ValueError(f"holdout={self.holdout!r}: a share of the claims in [0, 1), e.g. 0.3")
        if self.part not in ("selection", "holdout"):
            raise ValueError(f"part={self.part!r}: selection or holdout")

    @classmethod
    def from_config(
        cls, claims: Mapping[str, Any], corpus: Mapping[str, Any], holdout: float = 0.0
    ) -> Sampling:
        """From a sweep definition's ``claims: {sample, seed}``, ``corpus: {distractors, seed}``, holdout."""
        seed = claims.get("seed", corpus.get("seed", 0))
        return cls(claims.get("sample"), corpus.get("distractors"), seed, float(holdout))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def apply(self, dataset: Dataset) -> Dataset:
        if self.claims is not None or self.distractors is not None or self.documents is not None:
            dataset = sample_dataset(dataset, self.claims, self.distractors, self.seed, self.documents)
        if self.holdout:
            held = holdout_split(list(dataset.claims), self.holdout, self.seed, dataset.cluster_by)
            keep = [c for c in dataset.claims if (c.claim_id in held) == (self.part == "holdout")]
            dataset = dataclasses.replace(dataset, claims=ClaimSet(tuple(keep), dataset.claims.name))
        return dataset


def holdout_split(
    claims: Sequence[Claim], share: float, seed: int = 0, cluster_by: str = "document"
) -> set[str]:
    """Ids of about ``share`` of the claims, set aside before a sweep runs.

    Claims of one cluster (``cluster_by``: those sharing a document or a group) stay on one side (they
    would leak into each other otherwise); whole groups are drawn in a seeded order and taken while
    they bring each label's count closer to its target, so the split is stratified by label as far as
    the groups allow.
    """
    groups: dict[int, list[Claim]] = {}
    for claim, cluster in zip(claims, claim_clusters(claims, cluster_by), strict=True):
        groups.setdefault(int(cluster), []).append(claim)
    order = sorted(groups)  # clusters are numbered by first appearance: stable before the seeded shuffle
    random.Random(seed).shuffle(order)
    target = Counter(c.label for c in claims)
    target = {label: share * n for label, n in target.items()}
    held: Counter[str] = Counter()
    out: set[str] = set()
    for key in order:
        adds = Counter(c.label for c in groups[key])
        before = sum(abs(target[lab] - held[lab]) for lab in target)
        after = sum(abs(target[lab] - held[lab] - adds[lab]) for lab in target)
        if after < before:
            held += adds
            out.update(c.claim_id for c in groups[key])
    return out


@functools.lru_cache(maxsize=4)
def prepared_dataset(path: str, sampling: Sampling) -> Dataset:
    """The dataset with the sampling applied (cached per process: workers call it too)."""
    return sampling.apply(load_dataset(path))


def _ids_sha256(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode("utf-8", "surrogatepass")).hexdigest()


def data_identity(path: str | Path, sampling: Sampling) -> tuple[dict[str, Any], str]:
    """What identifies the data a run used (file hashes, sampling, the chosen ids), and its fingerprint.

    All a worker checks before each point: the rest of :func:`data_record` is for the run's record.
    """
    dataset = prepared_dataset(str(path), sampling)
    identity = {
        "files": {name: file_sha256(Path(path) / name) for name in (CORPUS_FILE, CLAIMS_FILE)},
        "sampling": sampling.to_dict(),
        "doc_ids_sha256": _ids_sha256([d.doc_id for d in dataset.corpus]),
        "claim_ids_sha256": _ids_sha256([c.claim_id for c in dataset.claims]),
        # which claims are resampled together changes every interval; the default keeps older fingerprints
        **({"cluster_by": dataset.cluster_by} if dataset.cluster_by != "document" else {}),
    }
    return identity, hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def data_record(path: str | Path, sampling: Sampling) -> dict[str, Any]:
    """What a run used: its identity and fingerprint, counts, languages and the chosen ids."""
    dataset = prepared_dataset(str(path), sampling)
    doc_ids = [d.doc_id for d in dataset.corpus]
    claim_ids = [c.claim_id for c in dataset.claims]
    identity, fingerprint = data_identity(path, sampling)
    return {
        "fingerprint": fingerprint,
        "path": str(Path(path).resolve()),
        "name": dataset.name,
        **identity,
        "documents": len(doc_ids),
        "claims": len(claim_ids),
        "labels": dataset.claims.label_counts(),
        "cluster_by": dataset.cluster_by,
        "clusters": int(len(set(claim_clusters(list(dataset.claims), dataset.cluster_by)))),
        # the languages the sentence rules read the documents in (a chunker's own lang: aside), and
        # whether dataset.json named it (else each was detected, or named in its own record)
        "languages": dict(sorted(Counter(document_language(d) for d in dataset.corpus).items())),
        "languages_named": load_metadata(path).get("language", "auto") != "auto",
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
