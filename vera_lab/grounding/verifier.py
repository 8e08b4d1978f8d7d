"""The verifier: a cross-encoder trained here, cross-fitted by document, reading each retrieved chunk.

Fitting on labelled claims trains K fold models, each on the claims of all but one fold of document
clusters (claims linked by a shared document stay together), and one model on every claim. A claim is
scored by the model that never saw its documents: the fold model that held them out, or, for a claim
whose documents no model saw (another dataset), the model trained on all. Training depends on the
labelled data and the recipe only, never on chunking, so it runs once per dataset fingerprint and
recipe; each model is cached under ``<cache_dir>/verifier/<key>/`` as the layers its training
changed (float16 safetensors with a checksum; a damaged one is trained again) and is built as int8
ONNX in memory on the weights it started from.

A claim's three probabilities are the mean of its top-k chunks' probabilities: the context a reader
gets must support the claim as a whole, and one chunk that happens to look supportive among k that do
not counts for less. (Chosen on ContractNLI dev contracts held out from training, never on test:
with the top two layers trained: ROC-AUC 0.787 against 0.771 for the most supportive chunk, three-way
macro-F1 0.60 against 0.56; with the top layer only, the default: 0.780 against 0.768.) The
verdict is the likeliest of the three; "grounded" thresholds the probability of support; the deciding
chunk is the one most clearly supporting or contradicting the claim.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from tqdm.auto import tqdm

from vera_lab.data import file_sha256
from vera_lab.data.clusters import claim_documents, document_clusters
from vera_lab.embedding.onnx_export import intact, publish
from vera_lab.grounding.artefact import SHIPPED, VerifierError, read_artefact, shipped_sha256
from vera_lab.grounding.base import VERDICTS, cluster_folds
from vera_lab.grounding.cross_encoder import OnnxCrossEncoder, TrainRecipe
from vera_lab.grounding.pairs import PairRecipe, pair_counts, training_pairs
from vera_lab.retrieval import Hits
from vera_lab.tokens import minilm_dir
from vera_lab.types import Chunk, Claim, Corpus

FORMAT = 2  # the cache layout and scoring graph: part of every key (2: trained tensors, not ONNX files)


STARTS = ("general", "minilm")  # what an adapted model starts from: the shipped verifier, or bare MiniLM


@dataclass(frozen=True)
class VerifierRecipe:
    """Which verifier judges: the shipped general one, or one adapted to labelled claims, and how.

    Without ``adapt`` nothing is trained and the other fields are unused. With it, K fold models (and
    one on every claim) are trained from ``start`` on the claims' pairs, cross-fitted by document.
    """

    folds: int = 3  # each fold model trains on two thirds of the documents; 4 folds cost a third more
    pairs: PairRecipe = PairRecipe()
    train: TrainRecipe = TrainRecipe()
    adapt: bool = False
    start: str = "general"

    def __post_init__(self) -> None:
        if not isinstance(self.folds, int) or self.folds < 2:
            raise ValueError(f"folds={self.folds!r}: at least 2 (each fold's model must leave documents out)")
        if self.start not in STARTS:
            raise ValueError(f"verifier start {self.start!r}: one of {', '.join(STARTS)}")
        if self.adapt and self.start == "general" and self.train.layers != 6:
            raise ValueError(
                f"verifier layers={self.train.layers}: adapting the general verifier keeps its 6 layers "
                "(start: minilm trains a smaller model from MiniLM)"
            )


# Each option's smallest and largest value (None: no bound); all whole numbers but the two rates.
OPTION_RANGES = {"folds": (2, None), "hard_negatives": (0, None), "random_negatives": (0, None),
                 "context_chars": (0, None), "epochs": (1, None), "batch_size": (1, None),
                 "max_length": (16, 512), "layers": (1, 6), "frozen_layers": (0, 5), "seed": (0, None),
                 "learning_rate": (1e-7, 1.0), "warmup": (0.0, 0.99)}  # fmt: skip


def recipe_from(options: Mapping[str, Any] | None = None) -> VerifierRecipe:
    """A recipe from flat options: ``adapt``, ``start``, ``folds``, PairRecipe's and TrainRecipe's fields.

    One ``seed`` serves both; an unknown key, a value out of range, or a training option without
    ``adapt: true`` (the general verifier is not trained again) raises a ValueError naming it.
    """
    options = dict(options or {})
    options.pop("general", None)  # the shipped weights' hash in a stored identity, not an option to set
    for key in options:
        if key not in OPTION_RANGES and key not in ("adapt", "start"):
            raise ValueError(
                f"verifier option {key!r} is unknown "
                f"(known: adapt, start, {', '.join(sorted(OPTION_RANGES))})"
            )
    adapt = options.pop("adapt", False)
    if not isinstance(adapt, bool):
        raise ValueError(f"verifier option adapt={adapt!r}: true or false")
    start = options.pop("start", "general")
    if not adapt and (options or start != "general"):
        named = ", ".join(sorted([*options, *(["start"] if start != "general" else [])]))
        raise ValueError(
            f"verifier option(s) {named} apply only when adapting the verifier to your claims: add "
            "adapt: true (without it the shipped general verifier judges and nothing is trained)"
        )
    for key, value in options.items():
        low, high = OPTION_RANGES[key]
        kind = float if isinstance(low, float) else int
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (kind is int and value != int(value))
        ):
            raise ValueError(
                f"verifier option {key}={value!r}: {'a number' if kind is float else 'a whole number'}"
            )
        if value < low or (high is not None and value > high):
            raise ValueError(
                f"verifier option {key}={value!r}: from {low} to {high if high is not None else 'any'}"
            )
    options = {
        k: (int(v) if not isinstance(OPTION_RANGES[k][0], float) else float(v)) for k, v in options.items()
    }
    pair_keys = {f.name for f in dataclasses.fields(PairRecipe)}
    train_keys = {f.name for f in dataclasses.fields(TrainRecipe)}
    pairs = PairRecipe(**{k: v for k, v in options.items() if k in pair_keys})
    train = TrainRecipe(**{k: v for k, v in options.items() if k in train_keys})  # checks frozen < layers
    return VerifierRecipe(options.get("folds", VerifierRecipe.folds), pairs, train, adapt, start)


def recipe_options(recipe: VerifierRecipe) -> dict[str, Any]:
    """The flat options of a recipe, every default filled: its canonical form in a sweep's identity.

    The shipped general verifier is named by its weights' sha256, so a retrained one is a new identity.
    """
    general = {"general": shipped_sha256()[:16]} if not recipe.adapt or recipe.start == "general" else {}
    if not recipe.adapt:
        return {"adapt": False, **general}
    flat = {"folds": recipe.folds, **dataclasses.asdict(recipe.pairs), **dataclasses.asdict(recipe.train),
            "adapt": True, "start": recipe.start, **general}  # fmt: skip
    return dict(sorted(flat.items()))


def data_fingerprint(claims: Sequence[Claim], corpus: Corpus) -> str:
    """A hash of the labelled claims and the text of every document they are about."""
    digest = hashlib.sha256()
    for claim in claims:
        evidence = [(s.doc_id, s.start, s.end) for s in claim.evidence]
        digest.update(
            json.dumps([claim.claim_id, claim.text, claim.label, claim.cited_doc_ids, evidence]).encode()
        )
        for doc in claim_documents(claim):
            if doc in corpus:
                digest.update(hashlib.sha256(corpus[doc].text.encode("utf-8", "surrogatepass")).digest())
    return digest.hexdigest()


@functools.cache
def toolchain() -> str:
    """What a built model depends on besides its data: MiniLM's weights and the exporting versions."""
    weights = file_sha256(minilm_dir() / "model.safetensors")
    versions = [f"{n}={metadata.version(n)}" for n in ("torch", "transformers", "onnx", "onnxruntime")]
    return "|".join([weights, *versions])


def model_key(claims: Sequence[Claim], corpus: Corpus, recipe: VerifierRecipe) -> str:
    """The cache key of a fitted verifier: data, recipe, weights, toolchain and format."""
    start = recipe_options(recipe).get("general", "minilm")
    blob = json.dumps(
        [FORMAT, dataclasses.asdict(recipe), start, data_fingerprint(claims, corpus), toolchain()]
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class FittedVerifier:
    """K fold models and one trained on all, with which documents each fold held out."""

    directory: Path
    recipe: VerifierRecipe
    fold_of_document: dict[str, int]
    manifest: dict

    @property
    def key(self) -> str:
        """The cache key of these models: data, recipe, start weights, toolchain."""
        return self.directory.name

    def describe(self) -> dict:
        """Which verifier judged and on what it was trained: for manifests and reports."""
        return {"verifier": "adapted", "start": self.recipe.start, "key": self.key, "adapted": True,
                "claims": self.manifest.get("claims"),
                "trained_on": self.manifest.get("pairs", {})}  # fmt: skip

    def session(self, name: str) -> OnnxCrossEncoder:
        """The ONNX Runtime session of model ``name``, loaded once per process.

        A sweep scores many configurations with the same models.
        """
        path = self.directory / f"{name}.safetensors"
        digest = path.with_suffix(".sha256").read_text().strip()
        train = self.recipe.train
        start = self.recipe.start
        return adapted_session(str(path), digest, train.layers, train.seed, train.max_length, start)

    def model_for(self, claim: Claim) -> str:
        """The model that never saw ``claim``'s documents: ``fold<k>`` or ``all``."""
        folds = {self.fold_of_document[d] for d in claim_documents(claim) if d in self.fold_of_document}
        if not folds:
            return "all"
        if len(folds) > 1:
            raise VerifierError(
                f"claim {claim.claim_id}: its documents were held out by different folds, so every "
                "verifier model saw one of them; score it with a verifier fitted without it"
            )
        return f"fold{folds.pop()}"

    def pair_probabilities(
        self, claims: Sequence[Claim], passages: Sequence[Sequence[str]], progress: bool = True
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Probabilities (n_passages, 3) per claim, and the passage word pieces lost to the maximum length.

        Each claim is read by the model that never saw its documents.
        """
        models = [self.model_for(c) for c in claims]
        out: list[np.ndarray] = [np.zeros((len(p), 3), dtype=np.float32) for p in passages]
        truncated = np.zeros(len(claims), dtype=np.int64)
        total = sum(len(p) for p in passages)
        bar = tqdm(total=total, desc="verify", unit="pair", disable=not progress or total < 500,
                   leave=False, file=sys.stderr)  # fmt: skip
        for name in dict.fromkeys(models):
            rows = [i for i, m in enumerate(models) if m == name]
            flat = [(i, j) for i in rows for j in range(len(passages[i]))]
            if not flat:
                continue
            probs, cut = self.session(name).probabilities(
                [claims[i].text for i, _ in flat], [passages[i][j] for i, j in flat], bar.update
            )
            for (i, j), p, c in zip(flat, probs, cut, strict=True):
                out[i][j] = p
                truncated[i] += c
        bar.close()
        return out, truncated

    def score(
        self, claims: Sequence[Claim], hits: Hits, chunks: Sequence[Chunk], progress: bool = True
    ) -> Reading:
        """:func:`claim_probabilities` of these claims and their retrieved chunks."""
        return claim_probabilities(self, claims, hits, chunks, progress)


@functools.lru_cache(maxsize=16)
def onnx_session(path: str, max_length: int) -> OnnxCrossEncoder:
    """The ONNX Runtime session of a verifier model, loaded once per process (a sweep reuses it)."""
    return OnnxCrossEncoder(Path(path), max_length)


def aggregate(probabilities: np.ndarray) -> np.ndarray:
    """A claim's (supported, contradicted, not mentioned): the mean of its chunks' (k, 3) probabilities."""
    if len(probabilities) == 0:
        return np.array([0.0, 0.0, 1.0])
    return probabilities.mean(axis=0)


class Reading(NamedTuple):
    """What the verifier read for each claim in its retrieved chunks.

    ``probabilities`` (n, 3) are the mean over the chunks: the score of support. ``verdict`` (n, 3) is
    the deciding chunk's own reading: the chunk (``deciding_rank``, 1-based) that most clearly supports
    or contradicts the claim. A mean would let four chunks that never mention the claim outvote the one
    that contradicts it. ``truncated`` counts the chunks' word pieces past the verifier's maximum length.
    """

    probabilities: np.ndarray
    deciding_rank: np.ndarray
    truncated: np.ndarray
    verdict: np.ndarray


def claim_probabilities(
    verifier: FittedVerifier,
    claims: Sequence[Claim],
    hits: Hits,
    chunks: Sequence[Chunk],
    progress: bool = True,
) -> Reading:
    """The verifier's :class:`Reading` of each claim's retrieved chunks."""
    passages = [[chunks[r].text for r in row if r >= 0] for row in hits.indices]
    per_chunk, truncated = verifier.pair_probabilities(claims, passages, progress)
    probs = np.array([aggregate(p) for p in per_chunk]).reshape(-1, 3)
    deciding = np.array([int(np.argmax(p[:, :2].max(axis=1))) + 1 if len(p) else 0 for p in per_chunk])
    verdict = np.array([p[d - 1] if d else [0.0, 0.0, 1.0] for p, d in zip(per_chunk, deciding, strict=True)])
    return Reading(probs, deciding, truncated, verdict.reshape(-1, 3))


def fit_verifier(
    claims: Sequence[Claim],
    corpus: Corpus,
    recipe: VerifierRecipe = VerifierRecipe(),
    cache_dir: str | Path = ".cache/vera_lab",
    progress: bool = True,
) -> FittedVerifier:
    """The verifier adapted to these labelled claims, cross-fitted, from the cache or trained now.

    Each model starts from ``recipe.start``: the shipped general verifier, or bare MiniLM.
    """
    claims = list(claims)
    if recipe.start == "general" and recipe.train.layers != 6:
        raise ValueError(
            f"verifier layers={recipe.train.layers}: adapting the general verifier keeps its 6 layers "
            "(start: minilm trains a smaller model from MiniLM)"
        )
    key = model_key(claims, corpus, recipe)
    directory = Path(cache_dir) / "verifier" / key
    return _load_or_train(directory, tuple(claims), corpus, recipe, progress)


# Fewer labelled claims of the rarer side (supported / not) than this, and adaptation is skipped: at
# 400 ContractNLI claims (about 200 a side) it lifted ROC-AUC to 0.850; on 34 claims its training loss
# stayed at chance. Where between it starts to help is not measured; 100 a side is on the safe side.
MIN_PER_SIDE_TO_ADAPT = 100


def too_few_to_adapt(claims: Sequence[Claim]) -> str:
    """Why these claims are too few to adapt the verifier ("" when they are enough)."""
    supported = sum(c.label == "supported" for c in claims)
    rarer = min(supported, len(claims) - supported)
    if rarer >= MIN_PER_SIDE_TO_ADAPT:
        return ""
    return (
        f"only {rarer} labelled claims on the rarer side ({supported} supported, {len(claims) - supported} "
        f"not): adapting the verifier needs at least {MIN_PER_SIDE_TO_ADAPT} a side, so the shipped general "
        "verifier judges instead (label more, or drop adapt: true)"
    )


def training_sets(
    claims: Sequence[Claim], recipe: VerifierRecipe
) -> tuple[np.ndarray, dict[str, list[Claim]]]:
    """Each claim's fold, and the claims each model trains on: ``fold<k>`` all but fold k, ``all`` all.

    Folds hold whole document clusters, so no fold model trains on a document of the claims it scores.
    """
    folds = cluster_folds(document_clusters(claims), recipe.folds, recipe.train.seed)
    if len(np.unique(folds)) < recipe.folds:
        raise VerifierError(
            f"the verifier's {recipe.folds} folds need claims about at least {recipe.folds} separate "
            f"documents; these {len(claims)} claims form {len(np.unique(folds))} cluster(s) of linked "
            "documents"
        )
    training = {
        f"fold{k}": [c for c, f in zip(claims, folds, strict=True) if f != k] for k in range(recipe.folds)
    }
    return folds, training | {"all": list(claims)}


def int8_agreement(model, int8: OnnxCrossEncoder, pairs: Sequence, max_length: int, n: int = 200) -> dict:
    """How far the int8 model's probabilities (as scoring builds it) lie from PyTorch's, on ``n`` pairs."""
    from vera_lab.grounding.cross_encoder import torch_probabilities

    sample = list(pairs)[:: max(1, len(pairs) // n)][:n]
    claims, passages = [p.claim for p in sample], [p.passage for p in sample]
    reference = torch_probabilities(model, claims, passages, max_length)
    int8, _ = int8.probabilities(claims, passages)
    gap = np.abs(int8 - reference)
    same = float((int8.argmax(axis=1) == reference.argmax(axis=1)).mean())
    return {
        "pairs": len(sample),
        "max_abs": float(gap.max()),
        "mean_abs": float(gap.mean()),
        "same_verdict": same,
    }


def _write_checked(model, target: Path, trained_from: int) -> None:
    """Keep only what training changed: the layers from ``trained_from`` up, the pooler and the head.

    Float16 safetensors with a checksum beside them (about 4 MB where the top layer was trained,
    instead of a 59 MB ONNX file); :func:`adapted_session` builds the int8 graph from them in memory,
    on top of the weights training started from.
    """
    from safetensors.numpy import save_file

    from vera_lab.grounding.cross_encoder import trained_tensors

    tensors = {k: v.astype(np.float16) for k, v in trained_tensors(model, trained_from).items()}
    with no_space_said(target):
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".train-") as tmp:
            built = Path(tmp) / target.name
            save_file(tensors, str(built))
            publish(built, target)


@functools.lru_cache(maxsize=16)
def adapted_session(
    path: str, digest: str, layers: int, seed: int, max_length: int, start: str = "minilm"
) -> OnnxCrossEncoder:
    """An adapted model's int8 ONNX Runtime session, built in memory on the weights it started from.

    Its tensors go on MiniLM's weights, or on MiniLM's with the shipped general verifier's on top. A few
    seconds per model, once per process (``digest`` keys it, so a retrained file is built anew).
    """
    from safetensors.numpy import load_file

    from vera_lab.grounding.cross_encoder import export_int8, load_trained, new_model

    model = new_model(layers, seed)
    initial = _start(start)
    if initial is not None:
        load_trained(model, initial)
    load_trained(model, load_file(path))
    with tempfile.TemporaryDirectory(prefix="vera-lab-verifier-") as tmp:
        graph = Path(tmp) / "model.onnx"
        export_int8(model.eval(), graph)
        return OnnxCrossEncoder(graph.read_bytes(), max_length)


@contextlib.contextmanager
def no_space_said(target: Path):
    """A full disk while a verifier model is written, said with the folder and what to do."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        raise VerifierError(
            f"no space left on the device holding {target.parent} while writing the verifier model "
            f"{target.name} (about 60 MB each): free some space, or point --cache-dir at another disk, "
            "and run it again; models already written are kept and not trained again"
        ) from None


def _manifest(path: Path) -> dict | None:
    """A fitted verifier's manifest, or None when it is missing or damaged (the models are trained again)."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        print(f"vera-lab: {path} is damaged; training the verifier again", file=sys.stderr)
        return None


def _start(start: str) -> dict | None:
    """The trained tensors adaptation starts from: the shipped general verifier's, or None (bare MiniLM).

    The shipped artefact's checksum is checked each time it is read.
    """
    if start != "general":
        return None
    return read_artefact(SHIPPED)[1]


def _model_pairs(claims, corpus: Corpus, recipe: VerifierRecipe, folds, fold_of_document, missing):
    """The training pairs of each model to train.

    Drawn once for every claim, then each model keeps the pairs of its claims whose passages lie
    outside the documents it holds out (a random negative may come from any document).
    """
    drawn = training_pairs(claims, corpus, recipe.pairs)
    fold_of_claim = {c.claim_id: int(f) for c, f in zip(claims, folds, strict=True)}
    return {
        n: [p for p in drawn if n == "all" or (fold_of_claim[p.claim_id] != int(n[4:])
                                               and fold_of_document.get(p.doc_id) != int(n[4:]))]
        for n in missing
    }  # fmt: skip


def _announce(pairs: dict, recipe: VerifierRecipe, n_models: int, progress: bool) -> float:
    """The estimated training seconds, printed with what will be trained."""
    from vera_lab.grounding.cross_encoder import encode, estimated_seconds

    # Word pieces per pair, encoded once: pairs shared between models are counted for each.
    drawn = list({id(p): p for ps in pairs.values() for p in ps}.values())
    encoded = encode([p.claim for p in drawn], [p.passage for p in drawn], recipe.train.max_length)
    lengths = {id(p): len(ids) for p, ids in zip(drawn, encoded.ids, strict=True)}
    pieces = {n: sum(lengths[id(p)] for p in ps) for n, ps in pairs.items()}
    first = next(iter(pairs.values()))
    estimate = estimated_seconds(recipe.train, first[:128], list(pieces.values()))
    if progress:
        print(
            f"vera-lab: training the verifier ({len(pairs)} of {n_models} models, "
            f"{sum(map(len, pairs.values())):,} pairs, {sum(pieces.values()):,} word pieces x "
            f"{recipe.train.epochs} epoch(s)): about {estimate / 60:.1f} min on this machine",
            file=sys.stderr,
            flush=True,
        )
    return estimate


def _load_or_train(
    directory: Path, claims: tuple[Claim, ...], corpus: Corpus, recipe: VerifierRecipe, progress: bool
) -> FittedVerifier:
    from vera_lab.grounding.cross_encoder import train

    folds, training = training_sets(claims, recipe)
    fold_of_document = {d: int(f) for c, f in zip(claims, folds, strict=True) for d in claim_documents(c)}
    names = list(training)
    manifest_path = directory / "manifest.json"
    missing = [n for n in names if not intact(directory / f"{n}.safetensors")]
    manifest = _manifest(manifest_path)
    if manifest is None:  # what trained the models is unknown: train them all again
        missing = names
    elif not missing:
        return FittedVerifier(directory, recipe, fold_of_document, manifest)

    directory.mkdir(parents=True, exist_ok=True)
    pairs = _model_pairs(claims, corpus, recipe, folds, fold_of_document, missing)
    estimate = _announce(pairs, recipe, len(names), progress)
    seconds, agreement = {}, {}
    states: dict = {}  # the frozen layers' output per pair, shared by every model (frozen_layers > 0)
    initial = _start(recipe.start)
    for n in missing:
        start = time.perf_counter()
        model = train(pairs[n], recipe.train, desc=f"verifier {n}", progress=progress, state_cache=states,
                      start=initial)  # fmt: skip
        path = directory / f"{n}.safetensors"
        _write_checked(model, path, recipe.train.frozen_layers)
        seconds[n] = time.perf_counter() - start
        built = adapted_session(str(path), file_sha256(path), recipe.train.layers, recipe.train.seed,
                                recipe.train.max_length, recipe.start)  # fmt: skip
        agreement[n] = int8_agreement(model, built, pairs[n], recipe.train.max_length)
    previous = manifest or {}
    manifest = {
        "recipe": dataclasses.asdict(recipe),
        "claims": len(claims),
        "folds": {n: {"claims": len(training[n])} for n in names},
        "pairs": {n: pair_counts(ps) for n, ps in pairs.items()} | previous.get("pairs", {}),
        "train_seconds": previous.get("train_seconds", {}) | seconds,
        "int8_agreement": previous.get("int8_agreement", {}) | agreement,
        "estimated_seconds": estimate,
        "labels": list(VERDICTS),
    }
    manifest["pairs"] = {n: manifest["pairs"][n] for n in names if n in manifest["pairs"]}
    manifest_path.write_text(json.dumps(manifest, indent=2))
    return FittedVerifier(directory, recipe, fold_of_document, manifest)
