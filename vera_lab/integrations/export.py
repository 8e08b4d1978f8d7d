"""Export a stored configuration's chunks with metadata and vectors: Parquet, JSON Lines or ChromaDB.

The chunks are rebuilt from the stored parameters (chunking is deterministic, so ids match the
sweep's per-claim rows) and the vectors come from the embedding cache.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from vera_lab.data import atomic_write, write_jsonl
from vera_lab.embedding import DEFAULT_CACHE_DIR, get_embedder
from vera_lab.evaluation.resources import with_resources
from vera_lab.sweep.store import ResultsStore

TARGETS = ("parquet", "jsonl", "chroma")


def chunk_records(
    run_dir: str | Path, config_id: str = "best", cache_dir: str | Path = DEFAULT_CACHE_DIR
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Every chunk of the sweep's corpus under one configuration, and its unit vectors."""
    store = ResultsStore(run_dir)
    point = store.point(config_id)
    dataset = store.dataset()
    embedder = get_embedder(point.embedder, cache_dir=cache_dir)
    if embedder.fits_corpus:
        raise ValueError(
            f"{point.embedder} vectors are sparse and corpus-specific: export a dense embedder's config"
        )
    chunker = with_resources(point.make_chunker(), cache_dir)
    chunks = [c for doc in dataset.corpus for c in chunker.chunk(doc)]
    vectors = embedder.embed([c.text for c in chunks])
    records = []
    for c in chunks:
        doc = dataset.corpus[c.doc_id]
        records.append(
            {
                "chunk_id": c.chunk_id,
                "doc_id": c.doc_id,
                "index": c.index,
                "start": c.start,
                "end": c.end,
                "text": c.text,
                "page_start": doc.page_of(c.start),
                "page_end": doc.page_of(max(c.start, c.end - 1)),
                "section": c.metadata.get("section_path", ""),
                "n_tokens": c.n_tokens,
                "embedder": embedder.name,
            }
        )
    return records, vectors


def export_chunks(
    run_dir: str | Path,
    target: str,
    path: str | Path,
    config_id: str = "best",
    cache_dir: str | Path = DEFAULT_CACHE_DIR,
    force: bool = False,
) -> int:
    """Write the chunks of one configuration to ``path`` in the ``target`` format; returns the count.

    A Chroma collection that holds another configuration's chunks (or chunks vera-lab did not write) is
    replaced only with ``force``: adding to it would mix two chunkings in one index.
    """
    if target not in TARGETS:
        raise ValueError(f"--to {target!r}: choose one of {', '.join(TARGETS)}")
    path = Path(path)
    if target in ("jsonl", "parquet") and path.is_dir():
        raise ValueError(f"{path}: is a folder; give a file name such as {path / f'chunks.{target}'}")
    if target == "chroma" and (path.is_file() or (path.is_dir() and any(path.iterdir())
                                                  and not (path / "chroma.sqlite3").exists())):  # fmt: skip
        raise ValueError(f"{path}: exists and is not a ChromaDB folder; give a new or a ChromaDB folder")
    records, vectors = chunk_records(run_dir, config_id, cache_dir)
    if target == "jsonl":
        write_jsonl(path, ({**r, "vector": v.tolist()} for r, v in zip(records, vectors, strict=True)))
    elif target == "parquet":
        import pandas as pd

        frame = pd.DataFrame(records).assign(vector=list(vectors.astype(np.float32)))
        buffer = io.BytesIO()
        try:
            frame.to_parquet(buffer, index=False)
        except ImportError as exc:
            raise ImportError("parquet export needs pyarrow: pip install 'vera-lab[export]'") from exc
        atomic_write(path, buffer.getvalue())  # a failed write leaves the previous file whole
    else:
        point = ResultsStore(run_dir).point(config_id)
        _to_chroma(records, vectors, path, chroma_collection(point.embedder), point.config_id, force)
    return len(records)


def chroma_collection(embedder: str) -> str:
    """The Chroma collection a configuration's chunks go to: one per embedder, one vector space each."""
    name = f"vera-{embedder}"
    cleaned = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in name).strip("-._")
    return (cleaned or "vera-chunks")[:512]  # Chroma allows [a-zA-Z0-9._-], 3-512 characters


def _to_chroma(
    records: list[dict[str, Any]], vectors: np.ndarray, path: Path, name: str, config_id: str, force: bool
) -> None:
    try:
        import chromadb
    except ImportError as exc:
        raise ImportError("chroma export needs chromadb: pip install 'vera-lab[chroma]'") from exc
    client = chromadb.PersistentClient(path=str(path), settings=chromadb.Settings(anonymized_telemetry=False))
    if name in {c.name for c in client.list_collections()}:
        held = client.get_collection(name, embedding_function=None)
        other = (held.metadata or {}).get("vera_lab_config")
        if other != config_id and held.count():
            if not force:
                whose = f"configuration {other}'s chunks" if other else "chunks vera-lab did not write"
                raise ValueError(
                    f"{path}: Chroma collection {name!r} holds {whose}; adding {config_id}'s would mix two "
                    "chunkings in one index: pass --force to replace the collection, or give another folder"
                )
            client.delete_collection(name)
    # embedding_function=None: vectors are passed in, so chroma never loads (or downloads) a model.
    collection = client.get_or_create_collection(
        name=name, embedding_function=None, metadata={"hnsw:space": "cosine", "vera_lab_config": config_id}
    )
    batch = client.get_max_batch_size()
    for i in range(0, len(records), batch):
        part = records[i : i + batch]
        collection.upsert(
            ids=[r["chunk_id"] for r in part],
            embeddings=vectors[i : i + batch].tolist(),
            documents=[r["text"] for r in part],
            metadatas=[
                {k: v for k, v in r.items() if k not in ("chunk_id", "text") and v not in (None, "")}
                for r in part
            ],
        )
