"""Training pairs for the general verifier, from public claim-verification and NLI sets.

Each source is read from ``datasets/nli/`` (copied from the project's reference data with its
licences) or, for ContractNLI dev and SciFact, from the bundled datasets through
:func:`~vera_lab.grounding.pairs.training_pairs`. Labels are three-way where the source says so; where
it only says "not entailed" (MultiNLI binary) or "inaccurate" (Citation-Integrity's REFUTE, not always
a contradiction) the pair is labelled ``NOT_SUPPORTED``, which trains only the probability of support.

Not-mentioned passages are mostly *about the same subject*: sentences retrieved for the claim that
are not its evidence (Fool Me Twice), the rest of the cited abstract (Check-COVID, Citation-Integrity),
non-evidence sentences of the claim's contract (ContractNLI); a few come from other documents.
Passages are one to several sentences whatever the label, so length gives no label away.

With ``twins``, every supported pair also gives a contradicted one: its claim edited by a rule of
:mod:`vera_lab.data.contrast` (a number, a negation, an antonym, a unit of time) on the same passage.
``holdout`` keeps a share of claims (with all their pairs) out of training to validate on.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vera_lab.grounding.pairs import CONTRADICTED, NOT_MENTIONED, SUPPORTED, Pair, PairRecipe

NOT_SUPPORTED = 3  # contradicted or not mentioned: the source does not say which
LABEL_NAMES = ("supported", "contradicted", "not_mentioned", "not_supported")
SOURCES = ("snli", "mnli", "fool-me-twice", "check-covid", "citation-integrity", "contractnli-dev", "scifact")
DATASETS = Path(__file__).resolve().parents[2] / "datasets"


@dataclass(frozen=True)
class PublicRecipe:
    """Which sources, how many pairs at most from each sentence-pair set, and the seed of every draw."""

    sources: tuple[str, ...] = SOURCES[:-1]  # SciFact left out: it judges how the verifier transfers
    snli: int = 20_000  # at most this many pairs of each (SNLI has 19,666, MultiNLI 19,647)
    mnli: int = 20_000
    most_sentences: int = 4  # a passage holds 1 to this many sentences
    twins: bool = False
    holdout: float = 0.05  # share of claims kept out of training, to validate on
    seed: int = 0

    def __post_init__(self) -> None:
        unknown = set(self.sources) - set(SOURCES)
        if unknown:
            raise ValueError(f"unknown verifier training source(s) {sorted(unknown)}: choose from {SOURCES}")
        if not 0 <= self.holdout < 1:
            raise ValueError(
                f"holdout={self.holdout}: give the share of claims to validate on, from 0 to below 1"
            )


def _rng(recipe: PublicRecipe, key: str) -> np.random.Generator:
    return np.random.default_rng([recipe.seed, zlib.crc32(key.encode("utf-8", "surrogatepass"))])


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _pair(source: str, key: str, claim: str, passage: str, label: int, kind: str) -> Pair:
    return Pair(
        f"{source}:{key}", claim.strip(), passage.strip(), label, f"{source}:{key}", 0, len(passage), kind
    )


def _window(sentences: Sequence[str], anchors: Sequence[int], rng, most: int, avoid: set[int]) -> str:
    """The anchor sentences with up to ``most - len(anchors)`` neighbours in order, never from ``avoid``."""
    keep = sorted(set(anchors))
    extra = int(rng.integers(0, max(0, most - len(keep)) + 1))
    lo, hi = keep[0], keep[-1]
    for _ in range(extra):
        left_ok = lo - 1 >= 0 and lo - 1 not in avoid
        right_ok = hi + 1 < len(sentences) and hi + 1 not in avoid
        if not (left_ok or right_ok):
            break
        if left_ok and (not right_ok or rng.random() < 0.5):
            lo -= 1
        else:
            hi += 1
    rows = [i for i in range(lo, hi + 1) if i in keep or i not in avoid]
    return " ".join(sentences[i].strip() for i in rows)


def snli(recipe: PublicRecipe) -> list[Pair]:
    """SNLI dev and test: three-way, one-sentence captions; a stratified sample of ``recipe.snli``."""
    labels = {"entailment": SUPPORTED, "contradiction": CONTRADICTED, "neutral": NOT_MENTIONED}
    rows = [r for split in ("dev", "test") for r in _jsonl(DATASETS / "nli" / "snli" / f"{split}.jsonl")]
    rows = [r for r in rows if r["label"] in labels]
    pick = _rng(recipe, "snli").permutation(len(rows))[: recipe.snli]
    return [_pair("snli", str(i), rows[i]["hypothesis"], rows[i]["premise"], labels[rows[i]["label"]], "nli")
            for i in sorted(pick)]  # fmt: skip


def mnli(recipe: PublicRecipe) -> list[Pair]:
    """MultiNLI binary (dev matched and mismatched): entailment, or not (contradiction or neutral)."""
    rows = []
    for split in ("dev", "test"):
        with (DATASETS / "nli" / "mnli-binary" / f"{split}.tsv").open(encoding="utf-8") as handle:
            rows += [line.rstrip("\n").split("\t") for line in handle if line.count("\t") == 2]
    pick = _rng(recipe, "mnli").permutation(len(rows))[: recipe.mnli]
    return [
        _pair("mnli", str(i), rows[i][2], rows[i][1],
              SUPPORTED if rows[i][0] == "entailment" else NOT_SUPPORTED, "nli")
        for i in sorted(pick)
    ]  # fmt: skip


def fool_me_twice(recipe: PublicRecipe) -> list[Pair]:
    """Fool Me Twice: gold Wikipedia sentences among retrieved ones; retrieved non-evidence: not mentioned."""
    pairs = []
    for split in ("dev", "test"):
        for row in _jsonl(DATASETS / "nli" / "fool-me-twice" / f"{split}.jsonl"):
            rng = _rng(recipe, f"fmt:{row['id']}")
            gold = [e["text"] for e in row["gold_evidence"]]
            others = [e["text"] for e in row["retrieved_evidence"] if e["text"] not in gold]
            label = SUPPORTED if row["label"] == "SUPPORTS" else CONTRADICTED
            if gold:
                extra = [
                    others[i] for i in rng.permutation(len(others))[: rng.integers(0, recipe.most_sentences)]
                ]
                sentences = gold + extra
                order = rng.permutation(len(sentences))
                pairs.append(_pair("fool-me-twice", row["id"], row["text"],
                                   " ".join(sentences[i] for i in order), label, "evidence"))  # fmt: skip
            if others:
                n = int(rng.integers(1, recipe.most_sentences + 1))
                chosen = [others[i] for i in rng.permutation(len(others))[:n]]
                pairs.append(_pair("fool-me-twice", f"{row['id']}/nm", row["text"], " ".join(chosen),
                                   NOT_MENTIONED, "hard"))  # fmt: skip
    return pairs


def _abstract_pairs(
    source: str,
    claims: list[tuple[str, str, str, int, list[int]]],
    abstracts: dict[str, list[str]],
    recipe: PublicRecipe,
) -> list[Pair]:
    """Pairs from claims over sentence-split abstracts: ``(key, claim, doc, label, evidence rows)``.

    A labelled claim gives its evidence in a window, and a not-mentioned window of the other
    sentences of its abstract; a claim with no evidence gives a window of its abstract; each claim
    also gets one passage of another abstract.
    """
    pairs = []
    docs = sorted(abstracts)
    for key, claim, doc, label, rows in claims:
        sentences = abstracts.get(doc)
        if not sentences:
            continue
        rng = _rng(recipe, f"{source}:{key}")
        if rows and label != NOT_MENTIONED:
            passage = _window(sentences, rows, rng, recipe.most_sentences, set())
            pairs.append(_pair(source, key, claim, passage, label, "evidence"))
        free = [i for i in range(len(sentences)) if i not in rows]
        if free:
            start = free[int(rng.integers(len(free)))]
            passage = _window(sentences, [start], rng, recipe.most_sentences, set(rows))
            pairs.append(_pair(source, f"{key}/nm", claim, passage, NOT_MENTIONED,
                               "unsupported" if label == NOT_MENTIONED else "hard"))  # fmt: skip
        other = docs[int(rng.integers(len(docs)))]
        if other != doc and abstracts[other]:
            start = int(rng.integers(len(abstracts[other])))
            passage = _window(abstracts[other], [start], rng, recipe.most_sentences, set())
            pairs.append(_pair(source, f"{key}/random", claim, passage, NOT_MENTIONED, "random"))
    return pairs


def check_covid(recipe: PublicRecipe) -> list[Pair]:
    """Check-COVID: news claims over CORD-19 abstracts, three-way."""
    folder = DATASETS / "nli" / "check-covid"
    abstracts = {r["cord_id"]: r["abstract"] for r in _jsonl(folder / "corpus.json")}
    labels = {"SUPPORT": SUPPORTED, "REFUTE": CONTRADICTED, "NOTENOUGHINFO": NOT_MENTIONED}
    claims = [
        (r["id"], r["claim"], r["cord_id"], labels[r["label"]],
         [] if r["label"] == "NOTENOUGHINFO" else [e["sent_index"] for e in r["evidence_set"]])
        for r in _jsonl(folder / "all.json")
    ]  # fmt: skip
    return _abstract_pairs("check-covid", claims, abstracts, recipe)


def citation_integrity(recipe: PublicRecipe) -> list[Pair]:
    """Citation-Integrity train and dev (test kept unread): citing sentences over the cited abstracts."""
    folder = DATASETS / "nli" / "citation-integrity"
    abstracts = {str(r["doc_id"]): r["abstract"] for r in _jsonl(folder / "corpus.jsonl")}
    claims = []
    for split in ("train", "dev"):
        for r in _jsonl(folder / f"claims_{split}.jsonl"):
            for doc in r["cited_doc_ids"]:
                sets = r["evidence"].get(str(doc), [])
                rows = sorted({i for s in sets for i in s["sentences"]})
                kinds = {s["label"] for s in sets}
                label = (SUPPORTED if kinds == {"SUPPORT"} else NOT_SUPPORTED) if sets else NOT_MENTIONED
                claims.append((f"{split}{r['id']}/{doc}", r["claim"], str(doc), label, rows))
    return _abstract_pairs("citation-integrity", claims, abstracts, recipe)


def bundled(name: str, recipe: PublicRecipe) -> list[Pair]:
    """ContractNLI dev or SciFact through the project's own pair recipe (evidence, hard and random)."""
    from vera_lab.data import load_dataset
    from vera_lab.grounding.pairs import training_pairs

    dataset = load_dataset(DATASETS / name)
    pairs = training_pairs(
        list(dataset.claims), dataset.corpus, PairRecipe(hard_negatives=1, seed=recipe.seed)
    )
    return [
        Pair(
            f"{name}:{p.claim_id}", p.claim, p.passage, p.label, f"{name}:{p.doc_id}", p.start, p.end, p.kind
        )
        for p in pairs
    ]


READERS = {
    "snli": snli,
    "mnli": mnli,
    "fool-me-twice": fool_me_twice,
    "check-covid": check_covid,
    "citation-integrity": citation_integrity,
    "contractnli-dev": lambda recipe: bundled("contractnli-dev", recipe),
    "scifact": lambda recipe: bundled("scifact", recipe),
}


def twins(pairs: Sequence[Pair], recipe: PublicRecipe) -> list[Pair]:
    """A contradicted twin of each supported pair whose claim a rule can edit (one rule, drawn)."""
    from vera_lab.data.contrast import rule_edits

    out = []
    for p in pairs:
        edits = rule_edits(p.claim) if p.label == SUPPORTED else []
        if edits:
            rule, text = edits[int(_rng(recipe, f"twin:{p.claim_id}").integers(len(edits)))]
            out.append(Pair(f"{p.claim_id}~{rule}", text, p.passage, CONTRADICTED, p.doc_id, p.start, p.end,
                            "twin"))  # fmt: skip
    return out


def claim_key(pair: Pair) -> str:
    """The claim a pair asks about, shared by its passages (evidence, not mentioned, other) and its twin."""
    return pair.claim_id.split("~")[0].split("/")[0]


def held_out(pair: Pair, recipe: PublicRecipe) -> bool:
    """Whether the pair's claim is among the ``recipe.holdout`` share kept out of training (by a hash)."""
    digest = zlib.crc32(f"{recipe.seed}|{claim_key(pair)}".encode("utf-8", "surrogatepass"))
    return digest / 2**32 < recipe.holdout


def public_pairs(recipe: PublicRecipe = PublicRecipe()) -> tuple[list[Pair], list[Pair]]:
    """Training and held-out pairs of the recipe's sources, in source order; deterministic for a recipe."""
    pairs = [p for source in recipe.sources for p in READERS[source](recipe)]
    if recipe.twins:
        pairs += twins(pairs, recipe)
    train = [p for p in pairs if not held_out(p, recipe)]
    return train, [p for p in pairs if held_out(p, recipe) and p.kind != "twin"]


def data_manifest(pairs: Sequence[Pair]) -> dict[str, dict[str, int]]:
    """Pairs per source and label: what the verifier was trained on."""
    counts: dict[str, Counter] = {}
    for p in pairs:
        counts.setdefault(p.claim_id.split(":", 1)[0], Counter())[LABEL_NAMES[p.label]] += 1
    return {source: dict(sorted(c.items())) for source, c in counts.items()}
