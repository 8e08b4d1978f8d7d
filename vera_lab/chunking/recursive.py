"""Recursive splitting, paragraph -> line -> sentence -> word -> character (the peers' default)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import SizedChunker, Spans, register
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.windows import (
    fits_tokens,
    pack_bounds,
    pack_counted,
    rstrip_at,
    split_chars,
    token_windows,
)

_PARAGRAPH = re.compile(r"\n[^\S\n]*\n\s*")
_LINE = re.compile(r"\n\s*")
_WORD = re.compile(r"\s+")
LEVELS = ("paragraph", "line", "sentence", "word")


@register
@dataclass(frozen=True)
class RecursiveChunker(SizedChunker):
    """Split at the coarsest boundary present until every piece fits, then pack pieces back up.

    Neighbouring pieces are packed up to ``size``; up to ``overlap`` of whole pieces is repeated.
    """

    strategy: ClassVar[str] = "recursive"
    size: int = 1000
    overlap: float = 0

    def split(self, text: str) -> tuple[Spans, list[int] | None]:
        if self.unit == "tokens":
            return self._split_tokens(text)
        return self._split_chars(text), None

    def _split_chars(self, text: str) -> Spans:
        size, overlap = self.size, self.overlap_amount
        n = len(text)
        if n <= size:
            return [(0, rstrip_at(text, 0, n))]
        # Word-level pieces are runs of words of about a quarter of the overlap: fine enough to realise
        # the overlap, far fewer than one piece per word.
        grain = min(size, max(32, overlap // 4)) if overlap else size
        bounds: list[int] = []  # where each piece starts: pieces are contiguous, so no ends are needed

        def descend(a: int, b: int, level: int) -> None:  # depth <= 3: recursion is fine
            if level < 2 and text.find("\n", a, b) < 0:
                level = 2  # no line break: no paragraph or line to cut at
            if LEVELS[level] == "word":  # words, and inside a word only past size
                bounds.extend([piece_start for piece_start, _ in split_chars(text, a, b, size, grain)])
                return
            start = a
            for cut in [*self._cuts(text, a, b, LEVELS[level]), b]:
                if cut - start <= size:
                    bounds.append(start)
                else:
                    descend(start, cut, level + 1)
                start = cut

        descend(0, n, 0)
        bounds.append(n)
        return [
            (bounds[i], rstrip_at(text, bounds[i], bounds[j])) for i, j in pack_bounds(bounds, size, overlap)
        ]

    def _split_tokens(self, text: str) -> tuple[Spans, list[int]]:
        tokenizer = self.get_tokenizer()
        size = self.size
        pieces: list[tuple[int, int]] = []

        def descend(a: int, b: int, level: int) -> None:  # depth <= len(LEVELS): recursion is fine
            if level == len(LEVELS):  # a word longer than size tokens
                parts = token_windows(text, a, b, tokenizer, size, 0)[0]
                pieces.extend(
                    (s, parts[m + 1][0] if m + 1 < len(parts) else b) for m, (s, _) in enumerate(parts)
                )
                return
            start = a
            for cut in [*self._cuts(text, a, b, LEVELS[level]), b]:
                if fits_tokens(text, start, cut, tokenizer, size):
                    pieces.append((start, cut))
                else:
                    descend(start, cut, level + 1)
                start = cut

        if fits_tokens(text, 0, len(text), tokenizer, size):
            pieces.append((0, len(text)))
        else:
            descend(0, len(text), 0)

        def span_of(i: int, j: int) -> tuple[int, int]:
            return pieces[i][0], rstrip_at(text, pieces[i][0], pieces[j - 1][1])

        measures = tokenizer.count_many([text[a:b] for a, b in pieces])
        return pack_counted(text, measures, size, tokenizer, span_of, overlap=self.overlap_amount)

    def _cuts(self, text: str, a: int, b: int, level: str) -> list[int]:
        """Positions inside (a, b) where pieces of ``level`` begin; separators stay with the piece before."""
        if level == "sentence":
            return [a + s for s, _ in sentence_spans(text[a:b], self.lang)[1:]]
        if level == "word":
            return [m.end() for m in _WORD.finditer(text, a, b) if a < m.end() < b]
        # Paragraph and line separators begin with a line break: str.find jumps to each one about ten
        # times faster than the regex engine scans for it.
        pattern = _PARAGRAPH if level == "paragraph" else _LINE
        cuts = []
        at = text.find("\n", a, b)
        while at >= 0:
            match = pattern.match(text, at, b)
            if match is None:
                at = text.find("\n", at + 1, b)
                continue
            if match.end() < b:
                cuts.append(match.end())
            at = text.find("\n", match.end(), b)
        return cuts
