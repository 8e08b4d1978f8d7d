"""Context headers: the text that is embedded and indexed for a chunk, never the text it returns.

``headers`` prepends the document's title and the chunk's section path (from the structure-aware
chunkers, ``section_path``) on their own lines, the way contextual retrieval situates a chunk; the
chunk's offsets, and so every citation and metric, are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from vera_lab.types import Chunk, Corpus

CONTEXTS = ("none", "headers")


def header(chunk: Chunk, corpus: Corpus) -> str:
    """The title of the chunk's document and its section path, one per line ("" when neither exists)."""
    title = corpus[chunk.doc_id].title.strip() if chunk.doc_id in corpus else ""
    section = str(chunk.metadata.get("section_path", "")).strip()
    return "\n".join(part for part in (title, section) if part)


def indexed_texts(chunks: Sequence[Chunk], corpus: Corpus, context: str = "none") -> list[str]:
    """What is embedded and indexed for each chunk under ``context``."""
    if context not in CONTEXTS:
        raise ValueError(f"context {context!r}: one of {', '.join(CONTEXTS)}")
    if context == "none":
        return [c.text for c in chunks]
    out = []
    for chunk in chunks:
        head = header(chunk, corpus)
        out.append(f"{head}\n\n{chunk.text}" if head else chunk.text)
    return out
