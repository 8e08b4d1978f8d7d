"""What the reader receives for a retrieved chunk: the chunk, a window around it, or its parent.

Small chunks find evidence precisely; the reader may still want their surroundings. Expansion maps
every chunk to the span handed over when it is retrieved, within its own document:

- ``window(n)``: the chunk and its ``n`` neighbouring chunks on each side (LlamaIndex's sentence
  window, over chunks of any strategy);
- ``parent``: the chunks of a second, coarser chunker that overlap it, merged (LangChain's
  ParentDocumentRetriever, LlamaIndex's auto-merging).

Spans are document offsets, so ``document.text[start:end]`` is exactly what the reader gets, and
every metric (budget-matched recall included) counts those characters.
"""

from __future__ import annotations

from collections.abc import Sequence

from vera_lab.types import Chunk, Span


def _by_document(chunks: Sequence[Chunk]) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for row, chunk in enumerate(chunks):
        rows.setdefault(chunk.doc_id, []).append(row)
    return {d: sorted(r, key=lambda i: (chunks[i].start, chunks[i].end)) for d, r in rows.items()}


def window_spans(chunks: Sequence[Chunk], n: int) -> list[Span]:
    """Each chunk widened to its ``n`` neighbours on each side in its document (chunk order by offset)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"window {n!r}: a whole number of neighbouring chunks >= 0")
    out: list[Span] = [c.span for c in chunks]
    for rows in _by_document(chunks).values():
        for pos, row in enumerate(rows):
            near = rows[max(0, pos - n) : pos + n + 1]
            out[row] = Span(
                chunks[row].doc_id, min(chunks[r].start for r in near), max(chunks[r].end for r in near)
            )
    return out


def parent_spans(chunks: Sequence[Chunk], parents: Sequence[Chunk]) -> list[Span]:
    """Each chunk replaced by the union of the ``parents`` (chunks of the same documents) it overlaps."""
    by_doc = _by_document(parents)
    out = []
    for chunk in chunks:
        over = [parents[r] for r in by_doc.get(chunk.doc_id, ()) if parents[r].start < chunk.end
                and chunk.start < parents[r].end]  # fmt: skip
        if not over:
            out.append(chunk.span)
            continue
        start = min(chunk.start, *(p.start for p in over))
        out.append(Span(chunk.doc_id, start, max(chunk.end, *(p.end for p in over))))
    return out
