"""Token windows (seed ADR-018: 512 tokens, 50 overlap) with a real offline tokenizer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import SizedChunker, Spans, register
from vera_lab.chunking.windows import token_windows


@register
@dataclass(frozen=True)
class TokenChunker(SizedChunker):
    """Windows of at most ``size`` tokens, ``overlap`` tokens repeated, ending on word boundaries.

    The text is tokenized once; chunk offsets come from the tokenizer's character offsets, so the
    chunk text is a slice of the document, never a decode of token ids.
    """

    strategy: ClassVar[str] = "token"
    units: ClassVar[tuple[str, ...]] = ("tokens",)
    size: int = 512
    overlap: float = 50
    unit: str = "tokens"

    def split(self, text: str) -> tuple[Spans, list[int]]:
        return token_windows(text, 0, len(text), self.get_tokenizer(), self.size, self.overlap_amount)
