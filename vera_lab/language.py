"""Which language a document is written in: English and nine others, by script and common words.

Chinese, Japanese and Russian are told by their scripts (kana make Japanese); the Latin-script
languages by which language's most common function words the text uses most. A few thousand
characters decide, so detection costs microseconds; a dataset (``"language"`` in ``dataset.json``)
or a document's metadata can name the language instead. Sentence rules then follow it (see
:mod:`vera_lab.chunking.segment`), and every chunk records it as ``metadata["lang"]``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from contextvars import ContextVar

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja")
SAMPLE = 1000  # characters read to decide: about 170 words

# Frequent words of each language that are rare in the others (articles, pronouns, conjunctions).
_FUNCTION_WORDS = {
    "en": "the and of to is that for with was this are on it be by from have not",
    "de": "der die und das ist nicht mit sich des dem ein eine auf für auch wird werden sie bei nach",
    "fr": "le la les et est des une du que pour dans qui pas sur au aux avec sont ce cette",
    "es": "el la los las y que de en del una por con para es se su al como más pero sus",
    "it": "il di che la per non una sono del della gli nel alla anche come questo più ha",
    "pt": "o os que de não uma do da dos das em para com é ao no na se mais pelo",
    "nl": "de het een en van is dat niet zijn op te voor met die ook aan er wordt",
}
_WORDS = {lang: tuple(words.split()) for lang, words in _FUNCTION_WORDS.items()}
_VOTES: dict[str, tuple[str, ...]] = {}  # a function word -> the languages it votes for
for _lang, _words in _WORDS.items():
    for _word in _words:
        _VOTES[_word] = (*_VOTES.get(_word, ()), _lang)
_NOT_LATIN = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
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
    if lowered.count(" the ") + lowered.count(" and ") + lowered.count(" of ") >= 4:
        return "en"  # the common case, decided by three scans in C
    if _NOT_LATIN.search(sample):  # only then count scripts
        size = len(sample.strip() or " ")
        kana, han = len(_KANA.findall(sample)), len(_HAN.findall(sample))
        if kana + han > 0.2 * size:
            return "ja" if kana > 0.05 * (kana + han) else "zh"
        if len(_CYRILLIC.findall(sample)) > 0.3 * size:
            return "ru"
    votes = dict.fromkeys(_WORDS, 0)  # one pass over about 170 words: short documents pay little
    for word in lowered.split():
        for lang in _VOTES.get(word, ()):
            votes[lang] += 1
    best = max(votes, key=votes.__getitem__)  # ties: the first listed, English
    return best if votes[best] >= 2 else default


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
