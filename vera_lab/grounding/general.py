"""The general verifier: trained once here on public data, shipped as the few tensors training changed.

``load_verifier()`` checks the shipped artefact (``general_verifier/weights.safetensors``, float16, its
sha256 in ``manifest.json``; a damaged file is refused, never used), puts its tensors on top of the
packaged MiniLM weights, exports the network once as int8 ONNX into the cache (checksummed; a damaged
export is rebuilt) and returns a :class:`GeneralVerifier`. Nothing downloads and nothing trains.

A passage longer than the reader's limit is read in overlapping windows of word pieces, each window
with the claim; the passage's verdict is that of its most decisive window (the largest probability of
support or contradiction): a statement anywhere in the passage settles the claim, and the passage says
nothing of it only when no window does. Every character is read; nothing is cut.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from vera_lab.embedding.onnx_export import apart, intact, publish
from vera_lab.grounding.artefact import SHIPPED, VerifierError, read_artefact
from vera_lab.grounding.cross_encoder import LABELS, OnnxCrossEncoder, tokenizer
from vera_lab.grounding.verifier import (
    Reading,
    claim_probabilities,
    fit_verifier,
    no_space_said,
    onnx_session,
    too_few_to_adapt,
    toolchain,
)
from vera_lab.retrieval import Hits
from vera_lab.types import Chunk, Claim

WINDOW_OVERLAP = 32  # word pieces two neighbouring windows share, so no statement falls between them
SLICE = 1024  # pairs read at once: their word-piece offsets and encodings are all held together


def text_hash(text: str) -> str:
    """The first 16 hex digits of a text's sha256: names a document without holding it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def built_model(folder: Path, cache_dir: str | Path) -> tuple[Path, dict]:
    """The int8 ONNX file of the artefact in ``folder``, built once into ``cache_dir``, and its manifest."""
    manifest, _ = read_artefact(folder)  # checked here: a damaged artefact is refused before any build
    key = hashlib.sha256(f"{manifest['sha256']}|{toolchain()}".encode()).hexdigest()[:16]
    target = Path(cache_dir) / "verifier" / f"general-{key}" / "model.onnx"
    if intact(target):
        return target, manifest
    if target.exists():
        print(f"vera-lab: {target} does not match its checksum; building it again", file=sys.stderr)
    target.parent.mkdir(parents=True, exist_ok=True)
    apart(_build, folder, target)  # torch, needed only to export, never loads in this process
    return target, manifest


def _build(folder: Path, target: Path) -> None:
    """The artefact in ``folder`` on MiniLM, exported as int8 ONNX to ``target``."""
    from vera_lab.grounding.cross_encoder import export_int8, load_trained, new_model

    manifest, tensors = read_artefact(folder)
    train = manifest["train"]
    model = new_model(train["layers"], train["seed"])
    load_trained(model, tensors)
    with no_space_said(target), tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        built = Path(tmp) / target.name
        export_int8(model.eval(), built)
        publish(built, target)


@functools.cache
def _pieces():
    """MiniLM's tokenizer with no truncation or padding: it counts word pieces and their offsets."""
    tok = tokenizer(512)
    tok.no_truncation()
    return tok


def passage_windows(
    claim: str, passage: str, max_length: int, overlap: int = WINDOW_OVERLAP
) -> list[tuple[int, int]]:
    """Character ranges of ``passage`` that each fit the reader beside ``claim``, overlapping by word pieces.

    One range ``(0, len(passage))`` when the pair fits; otherwise windows of whole word pieces, the
    first from 0, the last to the end, each sharing ``overlap`` pieces with the next.
    """
    claim_enc, passage_enc = _pieces().encode_batch([claim, passage], add_special_tokens=False)
    return _windows(len(claim_enc.ids), passage_enc.offsets, len(passage), max_length, overlap)


def _windows(
    claim_pieces: int, offsets: Sequence[tuple[int, int]], length: int, max_length: int, overlap: int
) -> list[tuple[int, int]]:
    # [CLS] claim [SEP] passage [SEP]; a few pieces spare, since a window's text may re-tokenise longer
    room = max_length - 3 - min(claim_pieces, max_length // 2) - 4
    if len(offsets) <= room + 4:
        return [(0, length)]
    room = max(room, 2 * overlap)
    windows = []
    for lo in range(0, len(offsets), room - overlap):
        hi = min(lo + room, len(offsets))
        windows.append(
            (0 if lo == 0 else offsets[lo][0], length if hi == len(offsets) else offsets[hi - 1][1])
        )
        if hi == len(offsets):
            break
    return windows


def decisive(window_probabilities: np.ndarray) -> np.ndarray:
    """A passage's (3,) probabilities from its windows': the one most clearly supporting or contradicting."""
    return window_probabilities[int(np.argmax(window_probabilities[:, :2].max(axis=1)))]


@dataclass
class GeneralVerifier:
    """A verifier that needs no training: ``predict`` pairs, or score a configuration's retrieved chunks."""

    path: Path
    manifest: dict
    source: str  # "general", or the folder it was read from
    max_length: int = 256

    @property
    def name(self) -> str:
        return f"{self.source} ({self.manifest['sha256'][:12]})"

    @property
    def key(self) -> str:
        """The folder of its ONNX build: ``general-`` and a hash of its weights and toolchain."""
        return self.path.parent.name

    @property
    def trained_on(self) -> str:
        """The sources the verifier learned from, with their pair counts."""
        counts = self.manifest.get("pairs", {})
        return ", ".join(f"{s} {sum(c.values()):,}" for s, c in counts.items())

    def seen_share(self, corpus) -> float:
        """The share of ``corpus``'s documents read in training: its figures there are in sample."""
        seen = set(self.manifest.get("documents", ()))
        docs = list(corpus)
        return sum(text_hash(d.text) in seen for d in docs) / len(docs) if docs else 0.0

    def describe(self) -> dict:
        """Which verifier judged and on what it was trained: for manifests and reports."""
        return {"verifier": self.source, "sha256": self.manifest["sha256"], "key": self.key,
                "trained_on": self.manifest.get("pairs", {}), "adapted": False}  # fmt: skip

    @property
    def session(self) -> OnnxCrossEncoder:
        return onnx_session(str(self.path), self.max_length)

    def predict(
        self,
        pairs: Sequence[tuple[str, str]],
        progress: bool = False,
        tick: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Probabilities (n, 3) of supported / contradicted / not mentioned, one row per (claim, passage).

        Long passages are read in windows (:func:`passage_windows`) and combined by :func:`decisive`.
        Pairs are read :data:`SLICE` at a time: a passage's word-piece offsets take about a hundred
        bytes a piece as Python objects (120 on a 3,000-character contract passage): all of the main
        job's at once took most of a gigabyte.
        """
        pairs = [(str(c), str(p)) for c, p in pairs]
        out = np.zeros((len(pairs), LABELS), dtype=np.float32)
        bar = tqdm(total=len(pairs), desc="verify", unit="pair", leave=False, file=sys.stderr,
                   disable=not progress or len(pairs) < 500)  # fmt: skip
        for lo in range(0, len(pairs), SLICE):
            part = pairs[lo : lo + SLICE]
            out[lo : lo + len(part)] = self._read(part, tick)
            bar.update(len(part))
        bar.close()
        return out

    def _read(self, pairs: list[tuple[str, str]], tick: Callable[[int], None] | None) -> np.ndarray:
        """``predict`` for one slice: every pair's windows read, each pair's verdict by :func:`decisive`."""
        claim_lengths = [
            len(e.ids) for e in _pieces().encode_batch([c for c, _ in pairs], add_special_tokens=False)
        ]
        offsets = [e.offsets for e in _pieces().encode_batch([p for _, p in pairs], add_special_tokens=False)]
        flat_claims, flat_passages, bounds = [], [], [0]
        for (claim, passage), n, offs in zip(pairs, claim_lengths, offsets, strict=True):
            for start, end in _windows(n, offs, len(passage), self.max_length, WINDOW_OVERLAP):
                flat_claims.append(claim)
                flat_passages.append(passage[start:end])
            bounds.append(len(flat_claims))
        del offsets
        probs, _ = self.session.probabilities(flat_claims, flat_passages, tick)
        return np.array(
            [decisive(probs[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)], dtype=np.float32
        )

    def model_for(self, claim: Claim) -> str:
        """Every claim is read by the one general model: it was never trained on the user's claims."""
        return "general"

    def pair_probabilities(
        self, claims: Sequence[Claim], passages: Sequence[Sequence[str]], progress: bool = True
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Probabilities (n_passages, 3) per claim, and word pieces left unread (none: windows read all)."""
        flat = [(c.text, p) for c, ps in zip(claims, passages, strict=True) for p in ps]
        probs = self.predict(flat, progress)
        out, at = [], 0
        for ps in passages:
            out.append(probs[at : at + len(ps)])
            at += len(ps)
        return out, np.zeros(len(claims), dtype=np.int64)

    def score(
        self, claims: Sequence[Claim], hits: Hits, chunks: Sequence[Chunk], progress: bool = True
    ) -> Reading:
        """The :class:`~vera_lab.grounding.verifier.Reading` of these claims' retrieved chunks."""
        return claim_probabilities(self, claims, hits, chunks, progress)


def load_verifier(
    source: str | Path = "general", cache_dir: str | Path = ".cache/vera_lab"
) -> GeneralVerifier:
    """The shipped general verifier (``"general"``) or one written to a folder by training or adaptation."""
    folder = SHIPPED if str(source) == "general" else Path(source)
    if not folder.is_dir():
        raise VerifierError(f"verifier {source!r}: no such folder (use 'general' for the shipped verifier)")
    path, manifest = built_model(folder, cache_dir)
    return GeneralVerifier(path, manifest, "general" if folder == SHIPPED else str(folder),
                           manifest.get("train", {}).get("max_length", 256))  # fmt: skip


def verifier_for(recipe, claims: Sequence[Claim], corpus, cache_dir: str | Path = ".cache/vera_lab"):
    """The verifier a recipe names: the shipped one, or (``adapt``) one fitted on ``claims``, cross-fitted.

    Too few labelled claims to adapt (:func:`~vera_lab.grounding.verifier.too_few_to_adapt`): a warning
    says so and the shipped verifier judges.
    """
    too_few = too_few_to_adapt(claims) if recipe.adapt else ""
    if too_few:
        warnings.warn(too_few, stacklevel=2)
    if not recipe.adapt or too_few:
        return load_verifier("general", cache_dir)
    return fit_verifier(claims, corpus, recipe, cache_dir)
