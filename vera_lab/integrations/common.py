"""What both integrations share: the chunker, the metadata each chunk carries, the whole pipeline.

:class:`PipelineSearch` is the retrieval pipeline a sweep recommends, run over the user's documents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vera_lab.chunking import Chunker
from vera_lab.sweep.recommend import recommended_point
from vera_lab.types import Chunk, Document


def chunker_of(source: Chunker | str | Path) -> Chunker:
    """A chunker, or the one a ``recommendation.json`` (or its run folder) recommends."""
    if isinstance(source, Chunker):
        return source
    return recommended_point(source).make_chunker()


def document_of(text: str, doc_id: str | None) -> Document | str:
    """A vera_lab document for a text; without an id the chunker derives one from the text's hash."""
    return text if doc_id is None else Document(str(doc_id), text)


def chunk_metadata(chunk: Chunk, document: Document | None = None) -> dict[str, Any]:
    """Offsets, id, page and section of a chunk as flat metadata (the chunker's own keys kept)."""
    meta: dict[str, Any] = {k: v for k, v in chunk.metadata.items() if k != "bbox"}  # boxes are bulky
    page = chunk.metadata.get("page_start")
    if page is None and document is not None:
        page = document.page_of(chunk.start)
    meta.update({
        "doc_id": chunk.doc_id,
        "chunk_id": chunk.chunk_id,
        "start_index": chunk.start,
        "end_index": chunk.end,
        "page": page,
        "section": chunk.metadata.get("section_path"),
    })  # fmt: skip
    return meta


class PipelineSearch:
    """A recommendation's retrieval pipeline over the user's documents, exactly as the sweep measured it.

    The chunker, the embedder, the retriever (dense, BM25 or their fusion), context headers and
    expansion are vera_lab's own, so what a LangChain or LlamaIndex retriever returns is what the
    sweep scored: each result is the span the reader receives, with its document offsets. Reranking
    needs the verifier trained on the sweep's claims and is refused here (a pipeline it cannot honour).
    """

    def __init__(self, point, documents, cache_dir: str | Path | None = None) -> None:
        from vera_lab.embedding import get_embedder
        from vera_lab.evaluation import reader_spans
        from vera_lab.retrieval import SearchIndex
        from vera_lab.types import ClaimSet, Corpus, Dataset

        if point.pipeline.rerank:
            raise ValueError(
                "the recommended pipeline reranks with the verifier trained on the sweep's claims, which "
                "is not carried into a framework; use a recommendation without rerank, or rerank yourself"
            )
        self.point, self.pipeline = point, point.pipeline
        self.corpus = Corpus(tuple(documents))
        chunker = point.make_chunker()
        self.chunks = [c for d in self.corpus for c in chunker.chunk(d)]
        self.embedder = get_embedder(point.embedder, cache_dir=cache_dir)
        self.index = SearchIndex.build(self.chunks, self.corpus, self.pipeline, self.embedder)
        dataset = Dataset("documents", self.corpus, ClaimSet(()))
        self.reader = reader_spans(self.chunks, self.pipeline, point.parent_chunker(), dataset)

    def search(self, query: str, k: int | None = None) -> list[tuple[Chunk, Any, float]]:
        """The top ``k`` (default: the recommendation's k) as (chunk, span handed over, score), best first.

        A span handed over twice (two neighbours' windows) appears once.
        """
        k = k or self.point.k
        hits = self.index.rank(self.embedder.embed([query]), [query], k, None)
        out, seen = [], set()
        for row, score in zip(hits.indices[0], hits.scores[0], strict=True):
            if row >= 0 and self.reader[row] not in seen:
                seen.add(self.reader[row])
                out.append((self.chunks[row], self.reader[row], float(score)))
        return out

    def text(self, span) -> str:
        return self.corpus[span.doc_id].text[span.start : span.end]


def search_metadata(chunk: Chunk, span, score: float, document: Document) -> dict[str, Any]:
    """A result's metadata: the document's own keys, then the chunk found, the span handed over.

    The span's offsets (what the text is), the chunk's and the score win where a key is the same.
    """
    found = {"start_index": span.start, "end_index": span.end, "chunk_start": chunk.start,
             "chunk_end": chunk.end, "score": score}  # fmt: skip
    return {**dict(document.metadata), **chunk_metadata(chunk, document), **found}
