"""The searchable form of a chunked corpus under one pipeline: built once, ranked many times.

Evaluation, the label planner and the LangChain / LlamaIndex retrievers all search the same way:
the chunks' indexed texts (with context headers when the pipeline asks), their vectors in a dense
:class:`~vera_lab.retrieval.index.Index`, a BM25 index when the retriever is lexical or hybrid, and
:func:`~vera_lab.retrieval.pipeline.rank` over them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vera_lab.retrieval.context import indexed_texts
from vera_lab.retrieval.index import Hits, Index
from vera_lab.retrieval.lexical import BM25
from vera_lab.retrieval.pipeline import Pipeline, rank
from vera_lab.types import Chunk, Corpus


@dataclass
class SearchIndex:
    """Indexed texts, their vectors, the dense index and (lexical pipelines) the BM25 index."""

    pipeline: Pipeline
    texts: list[str]
    dense: Index
    lexical: BM25 | None

    @property
    def vectors(self) -> Any:
        return self.dense.vectors

    @classmethod
    def build(
        cls,
        chunks: Sequence[Chunk],
        corpus: Corpus,
        pipeline: Pipeline,
        embedder,
        seconds: dict[str, float] | None = None,
    ) -> SearchIndex:
        """Embed and index ``chunks`` as ``pipeline`` searches them; ``seconds`` gets embed_s and index_s.

        An embedder fitted on the searched texts (tf-idf) is fitted on them here.
        """
        texts = indexed_texts(chunks, corpus, pipeline.context)
        doc_ids = [c.doc_id for c in chunks]
        start = time.perf_counter()
        if embedder.fits_corpus:
            embedder.fit(texts)
        vectors = embedder.embed(texts)
        embedded = time.perf_counter()
        dense = Index(vectors, doc_ids)
        lexical = BM25(texts, doc_ids, language=corpus_language(chunks)) if pipeline.lexical else None
        if seconds is not None:
            seconds["embed_s"] = embedded - start
            seconds["index_s"] = time.perf_counter() - embedded
        return cls(pipeline, texts, dense, lexical)

    def rank(
        self, query_vectors, query_texts: Sequence[str], depth: int, allowed: Sequence[Sequence[str]] | None
    ) -> Hits:
        """Every query's chunks ranked ``depth`` deep by the pipeline's retriever (within ``allowed``)."""
        return rank(self.pipeline, depth, query_vectors, self.dense, query_texts, self.lexical, allowed)


def corpus_language(chunks: Sequence[Chunk]) -> str | None:
    """The language most chunks are written in (their ``metadata["lang"]``), which BM25 stems by."""
    languages = Counter(c.metadata.get("lang") for c in chunks if c.metadata.get("lang"))
    return languages.most_common(1)[0][0] if languages else None
