"""Markdown by its header hierarchy (seed ADR-0025, tier 1), parsed with markdown-it-py (CommonMark).

Each chunk carries its section path ("Setup > Install"). Sections are packed block by block up to
``size`` tokens; fenced code and tables stay whole unless one alone exceeds the size; oversized prose
blocks are cut at sentence boundaries; tiny neighbouring sections under the same parent are merged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import Chunk, SizedChunker, build_chunks, register
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.windows import cover_gaps, line_spans, line_starts, pack_units, rstrip_at
from vera_lab.types import Document

_ATOMIC = {"fence", "code_block", "table_open", "html_block"}


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    kind: str
    path: tuple[str, ...]


def markdown_blocks(text: str) -> list[_Block]:
    """Top-level blocks with character spans and the heading path they sit under."""
    from markdown_it import MarkdownIt

    starts = [*line_starts(text), len(text)]
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    blocks: list[_Block] = []
    stack: list[tuple[int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.map is None or tok.nesting == -1:
            continue
        begin, end = tok.map
        start, stop = starts[begin], starts[min(end, len(starts) - 1)]
        if tok.type == "heading_open":
            level = int(tok.tag[1:])
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""))
        kind = "atomic" if tok.type in _ATOMIC else "heading" if tok.type == "heading_open" else "prose"
        blocks.append(_Block(start, stop, kind, tuple(title for _, title in stack)))
    return _fill_gaps(text, blocks)


def _fill_gaps(text: str, blocks: list[_Block]) -> list[_Block]:
    """Text the parser gives no block to (link reference definitions, say) becomes a prose block."""
    by_span = {(b.start, b.end): b for b in blocks}
    out: list[_Block] = []
    for start, end in cover_gaps(text, list(by_span)):
        out.append(by_span.get((start, end)) or _Block(start, end, "prose", out[-1].path if out else ()))
    return out


@register
@dataclass(frozen=True)
class MarkdownChunker(SizedChunker):
    """Header-aware Markdown chunks of ``min_size``-``size`` tokens (seed: 256-1024)."""

    strategy: ClassVar[str] = "markdown"
    units: ClassVar[tuple[str, ...]] = ("tokens",)
    overlaps: ClassVar[bool] = False
    size: int = 1024
    overlap: float = 0
    unit: str = "tokens"
    min_size: int = 256

    def _chunk(self, document: Document) -> list[Chunk]:
        text, tokenizer = document.text, self.get_tokenizer()
        kinds: dict[tuple[int, int], str] = {}  # unit span -> block kind, filled below

        def split_block(a: int, b: int) -> list[tuple[int, int]]:
            kind = kinds.get((a, b), "prose")
            if kind == "atomic":
                return line_spans(text, a, b)
            return [(a + s, a + e) for s, e in sentence_spans(text[a:b])]

        sections: list[tuple[tuple[str, ...], list[_Block]]] = []
        for block in markdown_blocks(text):
            if block.kind == "heading" or not sections or sections[-1][0] != block.path:
                sections.append((block.path, []))
            sections[-1][1].append(block)
        pieces: list[tuple[int, int, int, tuple[str, ...]]] = []
        for path, blocks in sections:
            units = []
            for b in blocks:
                end = rstrip_at(text, b.start, b.end)
                if end > b.start:
                    units.append((b.start, end))
                    kinds[(b.start, end)] = b.kind
            spans, counts = pack_units(text, units, tokenizer, self.size, split_block)
            pieces.extend((s, e, n, path) for (s, e), n in zip(spans, counts, strict=True))
        merged = self._merge_small(text, pieces, tokenizer)
        return build_chunks(
            document,
            [(s, e) for s, e, _, _ in merged],
            [n for _, _, n, _ in merged],
            [{"section_path": " > ".join(path)} for _, _, _, path in merged],
        )

    def _merge_small(self, text, pieces, tokenizer):
        """Merge a chunk below ``min_size`` with its neighbour under the same parent, if they fit.

        The merged chunk keeps the two paths' common prefix.
        """
        out: list[tuple[int, int, int, tuple[str, ...]]] = []
        for start, end, count, path in pieces:
            if out:
                prev_start, _, prev_count, prev_path = out[-1]
                related = prev_path[:-1] == path[:-1] or path[: len(prev_path)] == prev_path
                if related and min(prev_count, count) < self.min_size:
                    joined = tokenizer.count(text[prev_start:end])
                    if joined <= self.size:
                        out[-1] = (prev_start, end, joined, _prefix(prev_path, path))
                        continue
            out.append((start, end, count, path))
        return out


def _prefix(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    common = []
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common.append(x)
    return tuple(common)
