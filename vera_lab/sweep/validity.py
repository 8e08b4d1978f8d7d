"""Is the comparison meaningful? Checks of the data against the grid, before a sweep runs.

Each check is a warning with counts, never silent and never fatal: the user decides. The same
warnings are stored in the manifest and shown in the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vera_lab.chunking import SizedChunker
from vera_lab.language import document_language
from vera_lab.sweep.config import Configuration
from vera_lab.tokens import get_tokenizer
from vera_lab.types import Dataset

MAX_LABEL_RATIO = 5.0  # the largest label over the smallest present one; above this, say so
DEGENERATE_SHARE = 0.5  # at least this share of documents shorter than a size: that size is degenerate


@dataclass(frozen=True)
class ValidityWarning:
    """One validity warning: a code, a sentence, and the counts behind it."""

    code: str
    message: str
    count: int
    total: int


def _sizes(points: Sequence[Configuration]) -> dict[tuple[str, str], set[int]]:
    """Chunk sizes in the grid by (unit, tokenizer)."""
    sizes: dict[tuple[str, str], set[int]] = {}
    for point in points:
        chunker = point.make_chunker()
        if isinstance(chunker, SizedChunker):
            sizes.setdefault((chunker.unit, chunker.tokenizer), set()).add(chunker.size)
    return sizes


def _lengths(texts: list[str], unit: str, tokenizer: str, languages: list[str | None]) -> np.ndarray:
    """Each text's length in ``unit``; sentences are counted in its document's language."""
    if unit == "tokens":
        return np.array(get_tokenizer(tokenizer).count_many(texts))
    if unit == "sentences":
        from vera_lab.chunking import sentence_spans

        return np.array([len(sentence_spans(t, lang)) for t, lang in zip(texts, languages, strict=True)])
    return np.array([len(t) for t in texts])


def validity_warnings(dataset: Dataset, points: Sequence[Configuration]) -> list[ValidityWarning]:
    """Everything about this data and grid that makes a comparison degenerate or lopsided."""
    out: list[ValidityWarning] = []
    docs = list(dataset.corpus)
    claims = list(dataset.claims)
    texts = [d.text for d in docs]
    language_of = {d.doc_id: document_language(d) for d in docs}  # sentences are counted in it
    spans = [s for c in claims for s in c.evidence]
    gold_texts = [dataset.corpus[s.doc_id].text[s.start : s.end] for s in spans]
    gold_languages = [language_of.get(s.doc_id) for s in spans]
    for (unit, tokenizer), sizes in sorted(_sizes(points).items()):
        doc_lengths = _lengths(texts, unit, tokenizer, [language_of[d.doc_id] for d in docs])
        gold_lengths = _lengths(gold_texts, unit, tokenizer, gold_languages) if gold_texts else np.array([])
        short = {size: int((doc_lengths <= size).sum()) for size in sorted(sizes)}
        degenerate = [size for size, n in short.items() if n >= DEGENERATE_SHARE * len(docs)]
        if degenerate:
            shown = ", ".join(f"{size} ({short[size]} of {len(docs)})" for size in degenerate)
            message = (
                f"documents no longer than the chunk size, at sizes {shown} {unit}: at such a size most "
                "documents are one chunk, so the size compares nothing"
            )
            out.append(ValidityWarning("short_documents", message, short[degenerate[0]], len(docs)))
        long = {size: int((gold_lengths > size).sum()) for size in sorted(sizes)}
        cut = [size for size, n in long.items() if n]
        if cut:
            shown = ", ".join(f"{size} ({long[size]} of {len(gold_lengths)})" for size in cut)
            message = (
                f"gold spans longer than the chunk size, at sizes {shown} {unit}: no chunk holds them whole"
            )
            out.append(ValidityWarning("long_evidence", message, long[cut[0]], len(gold_lengths)))
    out += _k_covers_documents(dataset, points)
    out += _k_covers_corpus(dataset, points)
    repeated = [n for n in Counter((c.text, c.cited_doc_ids) for c in claims).values() if n > 1]
    if repeated:
        message = f"{sum(repeated)} claims repeat another claim's text and documents: they count twice"
        out.append(ValidityWarning("duplicate_claims", message, sum(repeated), len(claims)))
    labels = Counter(c.label for c in claims)
    if len(labels) > 1 and max(labels.values()) > MAX_LABEL_RATIO * min(labels.values()):
        shown = ", ".join(f"{k} {v}" for k, v in labels.most_common())
        message = (
            f"labels are imbalanced ({shown}; more than {MAX_LABEL_RATIO:g} to 1): accuracy-like "
            "figures mostly measure the majority"
        )
        out.append(ValidityWarning("label_imbalance", message, max(labels.values()), len(claims)))
    out += _mixed_scripts(Counter(language_of.values()), len(docs), points)
    missing = [c for c in claims if any(s.doc_id not in dataset.corpus for s in c.evidence)]
    if missing:
        message = f"{len(missing)} claims cite evidence in documents the sampling left out: never retrievable"
        out.append(ValidityWarning("evidence_sampled_out", message, len(missing), len(claims)))
    return out


SCRIPTS = {"zh": "Chinese/Japanese", "ja": "Chinese/Japanese", "ru": "Cyrillic"}  # else Latin


def _mixed_scripts(languages: Counter, n_docs: int, points: Sequence[Configuration]) -> list[ValidityWarning]:
    """A corpus in more than one script, swept in characters: a size means another amount of text.

    ``languages`` counts the documents of each language.
    """
    scripts = Counter()
    for language, n in languages.items():
        scripts[SCRIPTS.get(language, "Latin")] += n
    by_chars = any(dict(p.chunker).get("unit", "chars") == "chars" for p in points)
    if len(scripts) < 2 or not by_chars:
        return []
    shown = ", ".join(f"{name} {n}" for name, n in scripts.most_common())
    found = ", ".join(f"{lang} {n}" for lang, n in languages.most_common())
    message = (
        f"the corpus mixes scripts ({shown} documents; languages {found}): a size in characters holds "
        "fewer words in Latin script (a word and its space are 5-7 characters) than in Chinese or Japanese "
        "(1-2), so one size means another chunk in each; sizes in tokens (unit: tokens) count alike"
    )
    return [ValidityWarning("mixed_scripts", message, min(scripts.values()), n_docs)]


def _char_chunks(length: float, chunker: SizedChunker) -> int:
    """About how many chunks a character-sized chunker cuts from a text of ``length`` characters."""
    step = max(1, chunker.size - chunker.overlap_amount)
    return max(1, int(np.ceil(max(0.0, length - chunker.size) / step)) + 1)


def _k_covers_corpus(dataset: Dataset, points: Sequence[Configuration]) -> list[ValidityWarning]:
    """For corpus-wide retrieval: configurations whose k returns (about) every chunk of the corpus."""
    covering = []
    for point in (p for p in points if p.scope == "corpus"):
        chunker = point.make_chunker()
        if not isinstance(chunker, SizedChunker) or chunker.unit != "chars":
            continue
        chunks = sum(_char_chunks(len(d.text), chunker) for d in dataset.corpus)
        if point.k >= chunks:
            covering.append(f"k={point.k} over about {chunks} chunks ({point.preset or chunker.strategy} "
                            f"{chunker.size}/{chunker.overlap:g})")  # fmt: skip
    covering = list(dict.fromkeys(covering))
    if not covering:
        return []
    message = (
        f"k is at least the number of chunks in the corpus, so every chunk is retrieved and retrieval is "
        f"not tested, for {len(covering)} configurations: {', '.join(covering)}"
    )
    return [ValidityWarning("k_covers_corpus", message, len(covering), len(points))]


def _k_covers_documents(dataset: Dataset, points: Sequence[Configuration]) -> list[ValidityWarning]:
    """For document-scoped retrieval: configurations whose k returns every chunk of a median document."""
    cited = [p for p in points if p.scope == "cited"]
    if not cited:
        return []
    median_length = float(np.median([len(d.text) for d in dataset.corpus]))
    covering = []
    for point in cited:
        chunker = point.make_chunker()
        if not isinstance(chunker, SizedChunker) or chunker.unit != "chars":
            continue
        if point.k >= _char_chunks(median_length, chunker):
            covering.append(
                f"{point.preset or chunker.strategy} {chunker.size}/{chunker.overlap:g} k={point.k}"
            )
    covering = list(dict.fromkeys(covering))  # one chunking judged by two scorers is one case
    if not covering:
        return []
    message = (
        f"the top k is a whole median document ({median_length:,.0f} chars), so retrieval is not tested, "
        f"for {len(covering)} configurations: {', '.join(covering)}"
    )
    return [ValidityWarning("k_covers_document", message, len(covering), len(cited))]
