"""Source code by its syntax (seed ADR-0025, tier 1).

Python goes through ``ast``; Go, JavaScript, TypeScript and Rust through tree-sitter-language-pack
0.13.0 (grammars bundled, nothing downloaded); any other language by lines.

Top-level definitions (with their decorators, comments directly above and docstrings) are packed
whole up to ``size`` tokens; a definition is split only when it alone exceeds the size (a class
into its members first, then lines).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import Chunk, SizedChunker, build_chunks, register
from vera_lab.chunking.windows import cover_gaps, line_spans, line_starts, pack_units, rstrip_at
from vera_lab.tokens import char_index_of_bytes
from vera_lab.types import Document

TREE_SITTER = {"go": "go", "javascript": "javascript", "typescript": "typescript", "rust": "rust"}


def python_units(text: str) -> list[tuple[int, int]] | None:
    """Spans of top-level statements, decorators included; None when the code does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = line_starts(text)
    units = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        start = lines[first - 1]
        end_line = node.end_lineno or first
        end = lines[end_line - 1] + len(_line_at(text, lines, end_line - 1))
        if units and start < units[-1][1]:  # statements sharing a line ("a = 1; b = 2") are one unit
            units[-1] = (units[-1][0], max(end, units[-1][1]))
        else:
            units.append((start, end))
    return _with_comments_above(text, units)


def _line_at(text: str, lines: list[int], index: int) -> str:
    stop = lines[index + 1] if index + 1 < len(lines) else len(text)
    return text[lines[index] : stop].rstrip("\r\n")


def _with_comments_above(text: str, units: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Extend each unit back over the comment lines directly above it (they document it)."""
    out = []
    previous_end = 0
    for start, end in units:
        gap = text[previous_end:start]
        lines = gap.splitlines(keepends=True)
        back = 0
        for line in reversed(lines):
            if line.strip().startswith(("#", "//")):
                back += len(line)
            else:
                break
        out.append((start - back, end))
        previous_end = end
    return out


def tree_sitter_units(text: str, language: str) -> list[tuple[int, int]]:
    """Spans of the top-level syntax nodes (character offsets)."""
    from tree_sitter_language_pack import get_parser

    data = text.encode("utf-8", "surrogatepass")
    tree = get_parser(language).parse(data)
    char_of_byte = char_index_of_bytes(text)
    return [(int(char_of_byte[n.start_byte]), int(char_of_byte[n.end_byte])) for n in tree.root_node.children]


@register
@dataclass(frozen=True)
class CodeChunker(SizedChunker):
    """Syntax-aware code chunks of at most ``size`` tokens (seed: 128-512).

    ``language`` comes from the document's format (``code:python``) unless given explicitly.
    """

    strategy: ClassVar[str] = "code"
    units: ClassVar[tuple[str, ...]] = ("tokens",)
    overlaps: ClassVar[bool] = False
    size: int = 512
    overlap: float = 0
    unit: str = "tokens"
    language: str | None = None

    def _chunk(self, document: Document) -> list[Chunk]:
        text, tokenizer = document.text, self.get_tokenizer()
        language = self.language or (document.format.split(":", 1)[1] if ":" in document.format else "")
        units = None
        if language == "python":
            units = python_units(text)
        elif language in TREE_SITTER:
            units = tree_sitter_units(text, TREE_SITTER[language])
        method = "syntax"
        if units is None:  # unknown language or unparsable code
            units, method = line_spans(text, 0, len(text)), "lines"

        def split_unit(a: int, b: int) -> list[tuple[int, int]]:
            # A Python class too large for one chunk: its members (which fall back to lines).
            return _members(text, a, b) if language == "python" else line_spans(text, a, b)

        # Comments and blank-separated text outside any statement still belong to some chunk.
        trimmed = cover_gaps(text, [(a, rstrip_at(text, a, b)) for a, b in units if text[a:b].strip()])
        spans, counts = pack_units(text, trimmed, tokenizer, self.size, split_unit)
        meta = {"language": language or "unknown", "split": method}
        return build_chunks(document, spans, counts, [dict(meta) for _ in spans])


def _members(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """A class split into its header and each member (decorators included), as character spans."""
    block = text[a:b]
    try:
        tree = ast.parse(block)
    except SyntaxError:
        return line_spans(text, a, b)
    cls = tree.body[0] if tree.body else None  # a comment alone parses to an empty module
    if not isinstance(cls, ast.ClassDef) or not cls.body:
        return line_spans(text, a, b)
    lines = line_starts(block)
    starts = [
        lines[min([n.lineno, *(d.lineno for d in getattr(n, "decorator_list", []))]) - 1] for n in cls.body
    ]
    bounds = [0, *starts, len(block)]  # the class header, then one piece per member
    return [
        (a + s, a + rstrip_at(block, s, e))
        for s, e in zip(bounds, bounds[1:], strict=False)
        if block[s:e].strip()
    ]
