"""Chunking speed of vera_lab's chunkers beside peers, with offsets checked, and linearity.

Run: make bench   (or .venv/bin/python benchmarks/chunking_speed.py [--quick])
The embedding-based chunkers (semantic, tiered) run on a 200 KB sample (cold embedding cache) with the
hashing embedder and with MiniLM: at MiniLM's pace (~0.01 MB/s) a 10 MB corpus would take 15-30 minutes.
Settings: 1000/200 chars for fixed, sentence and recursive; 256/50 tokens (MiniLM WordPiece) for
token. MB = 10^6 bytes of UTF-8; times are the fastest of 3 rounds (5 for the 4M/2M ratio), each round
timing every chunker of a strategy once, so that a slow spell of the machine hits them alike. Peers run
only where they offer the strategy; "offsets" says whether their start offsets reproduce each chunk.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from common import best_time, best_times, bundled_documents, long_text, table

from vera_lab import FixedChunker, RecursiveChunker, SentenceChunker, TokenChunker
from vera_lab.tokens import get_tokenizer, minilm_dir

Span3 = tuple[int, int, str]
Splitter = Callable[[str], list[Span3]]


def ours(chunker) -> Splitter:
    return lambda text: [(c.start, c.end, c.text) for c in chunker.chunk_text(text)]


def ours_with_ids(chunker) -> Splitter:
    """Chunk objects with every id read: ids are hashed on first read, which a sweep does for few."""

    def run(text: str) -> list[Span3]:
        return [(c.start, c.end, c.text) for c in chunker.chunk_text(text) if c.chunk_id]

    return run


def ours_spans(chunker) -> Splitter:
    """What the peers return, offsets and texts, without vera_lab's Chunk objects and ids."""

    def run(text: str) -> list[Span3]:
        return [(s, e, text[s:e]) for s, e in chunker.split(text)[0]]

    return run


def peers() -> dict[str, dict[str, Splitter]]:
    """Peer adapters by strategy; each returns (start, end, text) per chunk, start -1 when unknown."""
    found: dict[str, dict[str, Splitter]] = {"fixed": {}, "sentence": {}, "recursive": {}, "token": {}}
    from tokenizers import Tokenizer

    hf = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    hf.no_truncation()
    hf.no_padding()
    try:
        import chonkie

        def chonk(chunker) -> Splitter:
            return lambda t: [(c.start_index, c.end_index, c.text) for c in chunker.chunk(t)]

        found["fixed"]["chonkie"] = chonk(
            chonkie.TokenChunker(tokenizer="character", chunk_size=1000, chunk_overlap=200)
        )
        found["sentence"]["chonkie"] = chonk(chonkie.SentenceChunker(chunk_size=1000, chunk_overlap=200))
        found["recursive"]["chonkie (no overlap)"] = chonk(chonkie.RecursiveChunker(chunk_size=1000))
        found["token"]["chonkie"] = chonk(
            chonkie.TokenChunker(tokenizer=hf, chunk_size=256, chunk_overlap=50)
        )
    except ImportError:
        pass
    try:
        from langchain_text_splitters import CharacterTextSplitter, RecursiveCharacterTextSplitter

        def lc(splitter) -> Splitter:
            return lambda t: [
                (d.metadata["start_index"], d.metadata["start_index"] + len(d.page_content), d.page_content)
                for d in splitter.create_documents([t])
            ]

        found["fixed"]["langchain"] = lc(
            CharacterTextSplitter(separator="", chunk_size=1000, chunk_overlap=200, add_start_index=True)
        )
        found["recursive"]["langchain"] = lc(
            RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200, add_start_index=True)
        )
    except ImportError:
        pass
    try:
        import semantic_text_splitter as sts

        def sts_split(splitter) -> Splitter:
            return lambda t: [(s, s + len(c), c) for s, c in splitter.chunk_indices(t)]

        found["recursive"]["semantic-text-splitter"] = sts_split(sts.TextSplitter(1000, overlap=200))
        found["token"]["semantic-text-splitter"] = sts_split(
            sts.TextSplitter.from_huggingface_tokenizer(hf, 256, overlap=50)
        )
    except ImportError:
        pass
    try:
        import semchunk

        def semchunk_split(chunker, overlap) -> Splitter:
            def run(t: str) -> list[Span3]:
                texts, offsets = chunker(t, offsets=True, overlap=overlap)
                return [(s, e, c) for c, (s, e) in zip(texts, offsets, strict=True)]

            return run

        found["recursive"]["semchunk"] = semchunk_split(semchunk.chunkerify(len, 1000, memoize=False), 200)
        found["token"]["semchunk"] = semchunk_split(semchunk.chunkerify(hf, 256, memoize=False), 50)
    except ImportError:
        pass
    return found


def offsets_ok(text: str, chunks: list[Span3]) -> str:
    bad = sum(text[s:e] != c for s, e, c in chunks)
    return "ok" if not bad else f"{bad}/{len(chunks)} wrong"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1 MB corpus, one repeat (a smoke run)")
    parser.add_argument("--no-peers", action="store_true", help="measure vera_lab's chunkers only")
    parser.add_argument(
        "--strategy", action="append", choices=("fixed", "sentence", "recursive", "token"), help="only these"
    )
    args = parser.parse_args()
    min_bytes = 1_000_000 if args.quick else 10_000_000
    repeat = 1 if args.quick else 3
    docs = bundled_documents(min_bytes) if not args.quick else bundled_documents()[-5:]
    texts = [d.text for d in docs]
    mb = sum(len(t.encode()) for t in texts) / 1e6
    print(f"corpus: {len(texts)} documents, {mb:.1f} MB (datasets/scifact + datasets/chroma-eval)\n")

    tok = get_tokenizer("minilm")
    encode_s = best_time(lambda: [tok.encode_only(t) for t in texts], repeat)
    print(f"MiniLM tokenizer encode only: {mb / encode_s:.2f} MB/s\n")

    mine = {
        "fixed": FixedChunker(size=1000, overlap=200),
        "sentence": SentenceChunker(size=1000, overlap=200, min_size=0, max_size=1000),
        "recursive": RecursiveChunker(size=1000, overlap=200),
        "token": TokenChunker(size=256, overlap=50),
    }
    goals = {"fixed": "100 MB/s", "sentence": "30 MB/s", "recursive": ">= sts", "token": "0.7x encode"}
    others = {s: {} for s in mine} if args.no_peers else peers()
    rows = []
    small, large = long_text(2_000_000), long_text(4_000_000)
    for strategy, chunker in mine.items():
        if args.strategy and strategy not in args.strategy:
            continue
        entries = [
            ("vera_lab", ours(chunker)),
            ("vera_lab, ids read", ours_with_ids(chunker)),
            ("vera_lab spans", ours_spans(chunker)),
        ]
        entries += list(others[strategy].items())
        seconds = best_times({name: lambda s=split: [s(t) for t in texts] for name, split in entries}, repeat)
        # Linearity needs steadier timings than throughput: at least 5 rounds.
        by_length = {}
        for name, split in entries:
            by_length[name, "2M"] = lambda s=split: s(small)
            by_length[name, "4M"] = lambda s=split: s(large)
        length_seconds = best_times(by_length, max(repeat, 5))
        ours_speed = mb / seconds["vera_lab"]
        for name, split in entries:
            n_chunks = sum(len(split(t)) for t in texts)
            speed = mb / seconds[name]
            t2, t4 = length_seconds[name, "2M"], length_seconds[name, "4M"]
            row = {
                "strategy": strategy,
                "chunker": name,
                "MB/s": f"{speed:.1f}",
                "vs ours": f"{speed / ours_speed:.2f}x",
                "chunks": n_chunks,
                "offsets": "ok (tested)" if name.startswith("vera_lab") else offsets_ok_all(texts, split),
                "4M/2M cost": f"{t4 / t2:.2f}",
            }
            if name == "vera_lab":
                row["goal"] = goals[strategy]
                if strategy == "token":
                    row["MB/s"] += f" ({encode_s / seconds[name]:.2f}x encode)"
            rows.append(row)
            print(f"  {strategy:<9} {name:<24} {row['MB/s']:>22} MB/s  4M/2M {row['4M/2M cost']}", flush=True)
    print()
    print(table(rows, ["strategy", "chunker", "MB/s", "vs ours", "chunks", "offsets", "4M/2M cost", "goal"]))
    print()
    if not args.strategy:  # the embedding-based chunkers take a minute: only in a full run
        embedding_chunkers(texts)
    print("\nvs ours: peer speed / vera_lab speed for the same strategy (> 1 means the peer is faster).")
    print("vera_lab: Chunk objects, whose content-hashed ids are computed when first read; 'ids read' reads")
    print("every one. vera_lab spans: offsets and texts only, as the peers return them.")
    print("4M/2M cost: time for one 4M-char document / one 2M-char document (2.0 = linear).")


def embedding_chunkers(texts: list[str]) -> None:
    """Semantic and tiered chunking speed on 200 KB of the longest documents, cold cache."""
    import tempfile
    import time

    from vera_lab import Document
    from vera_lab.chunking import SemanticChunker, TieredChunker
    from vera_lab.evaluation.resources import with_resources

    sample = " ".join(sorted(texts, key=len)[-3:])[:200_000]
    mb = len(sample.encode()) / 1e6
    for embedder in ("hashing", "minilm"):
        for cls in (SemanticChunker, TieredChunker):
            with tempfile.TemporaryDirectory() as cache:
                chunker = with_resources(cls(embedder=embedder), cache)
                start = time.perf_counter()
                chunker.chunk(Document("sample", sample, format="text"))
                seconds = time.perf_counter() - start
            print(f"  {chunker.strategy:<9} {embedder:<8} {mb / seconds:6.2f} MB/s (200 KB, cold cache)")


def offsets_ok_all(texts: list[str], split: Splitter) -> str:
    sample = sorted(texts, key=len)[-5:]  # the longest documents, where offset bugs show
    results = [offsets_ok(t, split(t)) for t in sample]
    wrong = [r for r in results if r != "ok"]
    if all(s == -1 for t in sample[:1] for s, _, _ in split(t)):
        return "none"
    return "ok" if not wrong else "; ".join(wrong)


if __name__ == "__main__":
    main()
