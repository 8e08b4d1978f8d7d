"""Which language a document is written in: English and nine others, by script and common words.

Chinese, Japanese and Russian are told by their scripts (kana make Japanese); the Latin-script
languages by which language's most common function words the text uses most, and by their own
letters (ß, ñ, ã) when a text is too short for its words to decide. A few thousand
characters decide, so detection costs microseconds; a dataset (``"language"`` in ``dataset.json``)
or a document's metadata can name the language instead. Sentence rules then follow it (see
:mod:`vera_lab.chunking.segment`), and every chunk records it as ``metadata["lang"]``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Protocol

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja")
SAMPLE = 1000  # characters read to decide: about 170 words
FIRST = 150  # the word vote reads these first, and the rest of the sample only when they leave it close

# Frequent words of each language (articles, pronouns, conjunctions, common verbs); a word shared by
# several languages ("la", "un", "mais") votes for each of them.
_FUNCTION_WORDS = {
    "en": "the and of to is that for with was this are on it be by from have not",
    "de": "der die und das ist nicht mit sich des dem ein eine auf für auch wird werden sie bei nach "
    "aber oder nur noch ich wir hat sind im zum zur vom war wie als über wurde",
    "fr": "le la les et est des une du que pour dans qui pas sur au aux avec sont ce cette "
    "je nous vous mais ou très été ils elle être avait leur un si",
    "es": "el la los las y que de en del una por con para es se su al como más pero sus "
    "lo ya muy también está fue hay él ha han este esta un nos mi si",
    "it": "il di che la per non una sono del della gli nel alla anche come questo più ha "
    "un è ma ci ho mi lo sua suo stato essere si",
    "pt": "o os que de não uma do da dos das em para com é ao no na se mais pelo "
    "um ele ela foi são também há já muito ou pela nos este esta sua",
    "nl": "de het een en van is dat niet zijn op te voor met die ook aan er wordt "
    "ik hij ze maar wel nog naar om bij heeft werd hun je wie als",
}
# Letters one language writes and the others rarely do: they decide a text too short for its words to.
_LETTERS = {"de": "ßäöü", "es": "ñ¿¡", "pt": "ãõ", "fr": "êœûîë", "it": "òùì"}
_VOTERS = tuple(_FUNCTION_WORDS)
# A function word's votes packed in one int, a field a language wide enough for every word of a sample
# (at most SAMPLE // 2), so that a text's votes are summed in C, within a machine word (7 x 9 bits).
_BITS = (SAMPLE // 2).bit_length()
_SHIFTS = tuple(range(0, _BITS * len(_VOTERS), _BITS))
_MASK = (1 << _BITS) - 1
_PACKED: dict[str, int] = {}
for _rank, _lang in enumerate(_VOTERS):
    for _word in set(_FUNCTION_WORDS[_lang].split()):
        _PACKED[_word] = _PACKED.get(_word, 0) + (1 << (_BITS * _rank))
_LETTER_RANK = {letter: _VOTERS.index(lang) for lang, letters in _LETTERS.items() for letter in letters}
_LETTER_VOTES = re.compile(f"[{''.join(_LETTERS.values())}]")
_NOT_LATIN = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
# Where Chinese and Japanese text runs without spaces, as code point ranges [start, end): CJK
# punctuation and kana, Han (extension A, the unified block, compatibility ideographs), full-width forms.
UNSPACED = ((0x3000, 0x3100), (0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00), (0xFF00, 0xFFF0))
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")

# The language of the document a chunker is reading (set by Chunker.chunk), for sentence rules deep
# inside chunkers that see only text.
CURRENT: ContextVar[str | None] = ContextVar("vera_lab_language", default=None)


def detect_language(text: str, default: str | None = "en") -> str | None:
    """The language of ``text``: one of :data:`LANGUAGES`, or ``default`` when nothing decides."""
    sample = text[:SAMPLE]
    lowered = sample.lower()
    the = lowered.count(" the ")
    if the and the + lowered.count(" and ") + lowered.count(" of ") >= 4:
        return "en"  # the common case, decided by three scans in C (one where "the" is missing)
    script = _script(sample)
    if script:
        return script
    # Short documents make the vote the cost, so its first words decide unless they leave it close.
    cut = lowered.rfind(" ", 0, FIRST) if len(lowered) > FIRST else len(lowered)
    packed = _packed_votes(lowered[:cut])
    votes = _unpacked(packed)
    most = max(votes)
    if cut < len(lowered) and (most < 3 or most < 2 * sorted(votes)[-2]):
        votes = _unpacked(packed + _packed_votes(lowered[cut:]))
        most = max(votes)
    if most < 2:  # too few function words: a language's own letters vote too ("Hauptgang übel")
        for letter in _LETTER_VOTES.findall(lowered):
            votes[_LETTER_RANK[letter]] += 1
        most = max(votes)
    return _VOTERS[votes.index(most)] if most >= 2 else default  # ties: the first listed, English


class _Document(Protocol):  # vera_lab.types.Document, which sits beside this module, not below it
    text: str
    metadata: Mapping[str, Any]


def document_language(document: _Document, default: str | None = "en") -> str | None:
    """The language ``document`` names (``metadata["language"]``), else the one detected.

    The name is the document's own or its dataset's (``dataset.json``); "auto" names none.
    """
    named = document.metadata.get("language")
    return named if named and named != "auto" else detect_language(document.text, default)


def _script(sample: str) -> str | None:
    """Japanese, Chinese or Russian when their scripts fill ``sample``, else None."""
    try:
        sample.encode("latin-1")  # a copy of Latin-1 text, far cheaper than the scan below
        return None
    except UnicodeEncodeError:
        pass
    if not _NOT_LATIN.search(sample):
        return None
    size = len(sample.strip() or " ")
    kana, han = len(_KANA.findall(sample)), len(_HAN.findall(sample))
    if kana + han > 0.2 * size:
        return "ja" if kana > 0.05 * (kana + han) else "zh"
    return "ru" if len(_CYRILLIC.findall(sample)) > 0.3 * size else None


def _unpacked(packed: int) -> list[int]:
    """Each language's votes, in the order of ``_VOTERS``, from their packed sum."""
    return [(packed >> shift) & _MASK for shift in _SHIFTS]


def _packed_votes(text: str) -> int:
    """The votes of ``text``'s function words, packed as in ``_PACKED``: one field a language."""
    return sum(filter(None, map(_PACKED.get, text.split())))


def majority_language(texts: Sequence[str], sample: int = 200) -> str | None:
    """The language most of ``texts`` are detected in (an even sample of at most ``sample``), else None."""
    step = max(1, len(texts) // sample)
    counts = Counter(detect_language(text, default=None) for text in texts[::step])
    counts.pop(None, None)
    return counts.most_common(1)[0][0] if counts else None


def check_language(language: str, where: str = "language") -> str:
    """``language`` if it is one vera_lab segments (or "auto"), else a ValueError naming the choices."""
    if language != "auto" and language not in LANGUAGES:
        raise ValueError(f"{where} {language!r}: one of auto, {', '.join(LANGUAGES)}")
    return language
