"""Which claims are not independent evidence: clusters that intervals resample and folds hold out whole.

Claims about one document (the 17 questions ContractNLI asks of every contract) or made from one
question share their evidence, so a bootstrap that draws claims one by one is too sure of itself.
A dataset declares its clusters in ``dataset.json`` as ``cluster_by``:

- ``document`` (the default): claims linked through any shared document form one cluster; where no
  two claims share a document every claim is its own cluster, as a claim-level bootstrap assumes;
- ``group``: claims with the same ``group`` field (e.g. a question id) form one cluster, and claims
  linked through a shared document join it too;
- ``claim``: every claim is independent (say so only when it is true).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from vera_lab.types import Claim

CLUSTER_BY = ("document", "group", "claim")
DESCRIBED = {"document": "documents", "group": "claim groups", "claim": "claims"}


def claim_documents(claim: Claim) -> tuple[str, ...]:
    """The documents a claim is about: those it cites and those its evidence lies in."""
    return tuple(dict.fromkeys((*claim.cited_doc_ids, *(s.doc_id for s in claim.evidence))))


def _linked(claims: Sequence[Claim], keys_of) -> np.ndarray:
    """A cluster number per claim, claims sharing any key in one cluster; numbered by first appearance."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    keys = [tuple(keys_of(c)) or (f"\0claim:{c.claim_id}",) for c in claims]  # no key: a cluster alone
    for row in keys:
        for key in row[1:]:
            parent[root(key)] = root(row[0])
        root(row[0])
    roots: dict[str, int] = {}
    return np.array([roots.setdefault(root(row[0]), len(roots)) for row in keys], dtype=np.int64)


def document_clusters(claims: Sequence[Claim]) -> np.ndarray:
    """A cluster number per claim: claims linked through any shared document share a cluster.

    A model that must never see a claim's documents can then hold out whole clusters.
    """
    return _linked(claims, lambda c: (f"doc:{d}" for d in claim_documents(c)))


def claim_clusters(claims: Sequence[Claim], cluster_by: str = "document") -> np.ndarray:
    """A cluster number per claim under ``cluster_by`` (one of :data:`CLUSTER_BY`)."""
    if cluster_by == "document":
        return document_clusters(claims)
    if cluster_by == "claim":
        return np.arange(len(claims), dtype=np.int64)
    if cluster_by == "group":
        missing = [c.claim_id for c in claims if not c.group]
        if missing:
            raise ValueError(
                f"cluster_by group: {len(missing)} claims have no 'group' field (the first: {missing[0]}); "
                "give every claim one, or declare cluster_by document"
            )
        return _linked(claims, lambda c: _group_keys(c))
    raise ValueError(f"cluster_by {cluster_by!r}: one of {', '.join(CLUSTER_BY)}")


def _group_keys(claim: Claim) -> Iterable[str]:
    yield f"group:{claim.group}"
    yield from (f"doc:{d}" for d in claim_documents(claim))


def describe_clusters(clusters: Sequence[int], cluster_by: str) -> dict[str, object]:
    """What a bootstrap over these clusters resamples, for reports: the unit and the counts."""
    sizes = np.unique(np.asarray(clusters), return_counts=True)[1] if len(clusters) else np.array([0])
    independent = bool(sizes.max() <= 1)
    unit = "claims" if independent else DESCRIBED[cluster_by]
    return {
        "cluster_by": cluster_by,
        "resampled": unit,
        "clusters": int(len(sizes)) if len(clusters) else 0,
        "claims": len(clusters),
        "largest_cluster": int(sizes.max()),
    }
