"""Sweeps on workers: every distinct text embedded once, and every adapted verifier fitted once, first.

Configurations that share chunks (one chunker under several retrievers, scorers or k) would each
embed them on whichever worker gets them, several at once. So the client first gathers the texts
every pending configuration will embed (chunking is cheap; embedding is nearly all of a sweep), asks
the cache or shared store which are there already, sends the rest to the workers in parts as they
come (streamed, a few parts per worker in flight: the client never holds every text at once), and
waits until each part is published; the configurations then find every vector stored. With a
shared store (``store:`` in the sweep file) the workers may run on other machines. The ONNX models
are exported here first, and a verifier adapted to the sweep's claims is fitted here, by the client
alone, into the cache the workers load it from (one machine, or a ``--cache-dir`` every machine
mounts), so no two workers train the same models at once.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait

import numpy as np

from vera_lab.embedding.cache import CachedEmbedder, text_key
from vera_lab.evaluation import chunk_corpus
from vera_lab.evaluation.resources import cached_embedder, with_resources
from vera_lab.grounding.general import verifier_for
from vera_lab.retrieval import indexed_texts
from vera_lab.sweep.config import Configuration, SweepConfig
from vera_lab.sweep.data import Sampling, prepared_dataset


def fit_verifiers_once(
    points: Sequence[Configuration], labelled: tuple[str, Sampling], cache_dir: str
) -> int:
    """Fit every adapted verifier the points need, here and once; returns how many recipes were fitted."""
    recipes = [r for r in {p.verifier_recipe() for p in points if p.needs_verifier} if r.adapt]
    if not recipes:
        return 0
    source = prepared_dataset(*labelled)
    for recipe in recipes:
        verifier_for(recipe, list(source.claims), source.corpus, cache_dir)
    return len(recipes)


def build_models_once(points: Sequence[Configuration], cache_dir: str) -> list[str]:
    """Export the ONNX models the points use (embedders, the shipped verifier) here, once.

    Otherwise every worker that finds the cache without them exports the same files at once. Returns
    what was built or found.
    """
    from vera_lab.embedding.onnx_export import exported_model
    from vera_lab.grounding.general import load_verifier

    built = []
    for spec in dict.fromkeys(p.embedder for p in points):
        if spec in ("minilm-onnx", "minilm-int8"):
            built.append(str(exported_model("fp32" if spec == "minilm-onnx" else "int8", cache_dir)))
    if any(p.needs_verifier for p in points):
        built.append(str(load_verifier("general", cache_dir).path))
    return built


def workers_of(executor: Executor) -> int:
    """How many workers an executor has: a Dask client's, or a process pool's."""
    client = getattr(executor, "_client", None)
    if client is not None:
        return max(1, len(client.scheduler_info().get("workers", {})))
    return max(1, int(getattr(executor, "_max_workers", 1)))


PART = 1_000  # texts a worker embeds per task: enough to batch, small enough to spread over workers
IN_FLIGHT = 2  # parts sent ahead per worker: each busy, and the client holds few texts at once


class SeenKeys:
    """The texts already gathered, 8 bytes each: the first 8 bytes of their sha256, sorted.

    A Python set of the 32-byte keys took 113.8 bytes a text (``client_figures`` in
    benchmarks/sweep_on_workers.py); this takes 8. Two texts that share a prefix (by the birthday
    bound, a chance of about 4 in 100,000 that any two of 40 million texts do) are gathered once: the
    second is then embedded by its configuration, as without a client, so a collision costs time,
    never a wrong vector.
    """

    def __init__(self) -> None:
        self.sorted = np.empty(0, dtype=np.uint64)

    def __len__(self) -> int:
        return len(self.sorted)

    def first_seen(self, keys: Sequence[bytes]) -> np.ndarray:
        """Which of ``keys`` were never seen before (the first of repeats within ``keys``); adds them."""
        if not keys:
            return np.zeros(0, dtype=bool)
        prefixes = np.frombuffer(b"".join(k[:8] for k in keys), dtype=np.uint64)
        unique, first = np.unique(prefixes, return_index=True)
        at = np.searchsorted(self.sorted, unique)  # binary search, then one merge: no re-sort of the rest
        fresh = np.ones(len(unique), dtype=bool)
        if len(self.sorted):
            fresh = self.sorted[np.minimum(at, len(self.sorted) - 1)] != unique
        self.sorted = np.insert(self.sorted, at[fresh], unique[fresh])
        out = np.zeros(len(keys), dtype=bool)
        out[first[fresh]] = True
        return out


def parts_to_embed(
    config: SweepConfig, sampling: Sampling, points: Sequence[Configuration], cache_dir: str
) -> Iterator[tuple[str, list[str]]]:
    """(embedder, texts): parts of at most :data:`PART` distinct texts no cache or store holds yet.

    Streamed point by point: the client holds the keys it has seen (:class:`SeenKeys`, 8 bytes a text)
    and one unfinished part per embedder, never every text of every configuration at once.
    """
    dataset = prepared_dataset(config.dataset, sampling)
    claims = [c.text for c in dataset.claims]
    store = config.store or None
    seen: dict[str, SeenKeys] = {}
    waiting: dict[str, list[str]] = {}
    for point in points:
        embedder = cached_embedder(point.embedder, cache_dir, config.device, store)
        if not isinstance(embedder, CachedEmbedder):  # fitted on the searched texts: nothing to share
            continue
        chunks = chunk_corpus(with_resources(point.make_chunker(), cache_dir), dataset)
        texts = [*indexed_texts(chunks, dataset.corpus, point.pipeline.context), *claims]
        keys = [text_key(t) for t in texts]
        fresh = seen.setdefault(point.embedder, SeenKeys()).first_seen(keys)
        new = {keys[i]: texts[i] for i in np.flatnonzero(fresh)}
        held = embedder.cache.holds(embedder.name, list(new))
        queue = waiting.setdefault(point.embedder, [])
        queue.extend(text for key, text in new.items() if key not in held)
        while len(queue) >= PART:
            yield point.embedder, queue[:PART]
            del queue[:PART]
    yield from ((spec, queue) for spec, queue in waiting.items() if queue)


def embed_part(spec: str, texts: list[str], cache_dir: str, device: str, store: str | None) -> int:
    """On a worker: embed ``texts`` through the cache or store, which publishes them; returns the count."""
    embedder = cached_embedder(spec, cache_dir, device, store)
    before = embedder.stats.embedded
    embedder.embed(texts)
    return embedder.stats.embedded - before


def embed_once(
    executor: Executor,
    config: SweepConfig,
    sampling: Sampling,
    points: Sequence[Configuration],
    cache_dir: str,
    progress: bool = True,
) -> int:
    """Embed every text ``points`` need and no cache holds, once, split across the executor's workers.

    Returns how many texts the workers embedded (each distinct text at most once).
    """
    store, device, workers = config.store or None, config.device, workers_of(executor)
    pending: set[Future] = set()
    embedded = parts = 0
    for spec, part in parts_to_embed(config, sampling, points, cache_dir):
        if progress and not parts:
            print(f"embedding the texts no store holds, in parts of {PART} across {workers} workers, each "
                  "text once", file=sys.stderr)  # fmt: skip
        if len(pending) >= IN_FLIGHT * workers:  # the client holds the texts of the parts in flight only
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            embedded += sum(f.result() for f in done)
        pending.add(executor.submit(embed_part, spec, part, cache_dir, device, store))
        parts += 1
    return embedded + sum(f.result() for f in wait(pending).done)
