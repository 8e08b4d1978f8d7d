"""MiniLM throughput on this machine, and the speed-up of a fully cached second pass.

Run: .venv/bin/python benchmarks/embedding_speed.py
Passages are ~250-token token-chunker chunks of the bundled chroma-eval documents; short texts are
scifact claims. The cached pass reads every vector back from a fresh SQLite cache.
"""

from __future__ import annotations

import tempfile
import time

from common import ROOT

from vera_lab import TokenChunker, load_dataset
from vera_lab.embedding import CachedEmbedder, EmbeddingCache, get_embedder


def rate(embedder, texts: list[str]) -> tuple[float, float]:
    start = time.perf_counter()
    embedder.embed(texts)
    seconds = time.perf_counter() - start
    return len(texts) / seconds, seconds


def main() -> None:
    chroma = load_dataset(ROOT / "datasets" / "chroma-eval")
    passages = [c.text for c in TokenChunker(size=250, overlap=0).chunk(chroma.corpus["state_of_the_union"])]
    passages += [c.text for c in TokenChunker(size=250, overlap=0).chunk(chroma.corpus["wikitexts"])][:200]
    claims = [c.text for c in load_dataset(ROOT / "datasets" / "scifact").claims][:800]
    minilm = get_embedder("minilm")
    minilm.embed(["warm up the model"])
    p_rate, p_s = rate(minilm, passages)
    s_rate, s_s = rate(minilm, claims)
    print(f"MiniLM passages (~250 tokens): {len(passages)} in {p_s:.1f} s = {p_rate:.1f} passages/s")
    print(f"MiniLM short sentences (claims): {len(claims)} in {s_s:.1f} s = {s_rate:.1f} sentences/s")
    with tempfile.TemporaryDirectory() as tmp:
        texts = passages + claims
        cold_rate, cold_s = rate(CachedEmbedder(minilm, EmbeddingCache(tmp)), texts)
        warm = CachedEmbedder(minilm, EmbeddingCache(tmp))
        warm_rate, warm_s = rate(warm, texts)
        assert warm.stats.embedded == 0
    print(
        f"cold pass through the cache: {cold_s:.2f} s; fully cached pass: {warm_s * 1000:.1f} ms "
        f"-> speed-up {cold_s / warm_s:.0f}x (goal >= 50x)"
    )


if __name__ == "__main__":
    main()
