"""Which language a document is written in: English and nine others, by script and common words.

Chinese, Japanese and Russian are told by their scripts (kana make Japanese); the Latin-script
languages by which language's most common function words the text uses most, and by their own
letters (ß, ñ, ã) when a text is too short for its words to decide; where the words leave it
undecided (an ad, a product listing) or close, the letter trigrams of its words decide. The first
thousand characters decide, so detection costs microseconds (2-10 on a few hundred characters, about
10 more where trigrams decide); a dataset (``"language"`` in ``dataset.json``) or a document's
metadata can name the language instead. Sentence rules then follow it (see
:mod:`vera_lab.chunking.segment`), and every chunk records it as ``metadata["lang"]``.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja")
SAMPLE = 1000  # characters read to decide: about 170 words
FIRST = 150  # the word vote reads these first, and the rest of the sample only when they leave it close

# Frequent words of each language (articles, pronouns, conjunctions, common verbs); a word shared by
# several languages ("la", "un", "mais") votes for each of them. French "de", its commonest word, voted
# only for Spanish, Portuguese and Dutch until 2 of 76 French UD documents of ~670 bytes were read as
# Spanish; with it none are (single UD sentences: French 48 of 374 wrong -> 21, Spanish 19 of 1,602 -> 30;
# chosen on those texts). On 360 hand cases written after the choice it gains nothing: 76 wrong, 75 without.
_FUNCTION_WORDS = {
    "en": "the and of to is that for with was this are on it be by from have not",
    "de": "der die und das ist nicht mit sich des dem ein eine auf für auch wird werden sie bei nach "
    "aber oder nur noch ich wir hat sind im zum zur vom war wie als über wurde",
    "fr": "le la les et est des une du que pour dans qui pas sur au aux avec sont ce cette de "
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
# Each word is looked up as written, lowercase, capitalised or in capitals, so that the text need not be
# lowered first: str.lower() copies ASCII text fast and any other slowly (a fifth of the time detection took
# on a short Portuguese text); and with a stop, comma, colon, semicolon or mark after it ("ook.", "de,"),
# which split() leaves on the word (13,579 labelled texts, most of them UD sentences read alone: 476
# misread before, 459 after; 324 hand cases written after the change: 74 before, 70 after).
_PACKED: dict[str, int] = {}
for _rank, _lang in enumerate(_VOTERS):
    for _word in set(_FUNCTION_WORDS[_lang].split()):
        for _cased in {_word, _word.capitalize(), _word.upper()}:
            for _written in (_cased, *(_cased + mark for mark in ".,;:?!")):
                _PACKED[_written] = _PACKED.get(_written, 0) + (1 << (_BITS * _rank))
_LETTER_RANK = {letter: _VOTERS.index(lang) for lang, letters in _LETTERS.items() for letter in letters}
_LETTER_VOTES = re.compile(f"[{''.join(_LETTERS.values())}]")
# Where common words leave it undecided (an ad, a product listing, a reference) or close ("la", "de",
# "que" are words of several languages), naive Bayes over the letter trigrams of words decides, counted
# on UD text (benchmarks/language_trigrams.py builds the table and prints how it reads held-out text),
# when the best language leads the next by this many nats a trigram (chosen with the table's size by
# cross-validation on the text it counts).
TRIGRAM_TABLE = Path(__file__).with_name("language_trigrams.json")
GUESS_MARGIN = 0.05
GUESS_CHARS = 500  # the characters trigrams read: terse texts are short, and a new word costs ~3 µs
_WORD_LETTERS = re.compile(r"[^\W\d_]+")
# Where Chinese and Japanese text runs without spaces, as code point ranges [start, end): CJK
# punctuation and kana, Han (extension A, the unified block, compatibility ideographs), full-width forms.
UNSPACED = ((0x3000, 0x3100), (0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00), (0xFF00, 0xFFF0))
# A script's letters counted by the UTF-8 bytes that begin them, which bytes.translate and bytes.count
# find in C at memory speed (a regex's character class costs five to ten nanoseconds a character, a
# findall an object each). One pass keeps the lead bytes of Han U+4000-9FFF (E4-E9: the unified block, the
# upper part of extension A and the few hexagram signs between them) as "h", of Cyrillic U+0400-04FF
# (D0-D3) as "c", and of E3 (kana, CJK punctuation) as "k"; kana U+3040-30FF themselves are E3 81-83.
_LEADS = {"h": range(0xE4, 0xEA), "c": range(0xD0, 0xD4), "k": (0xE3,)}
_CLASSES = bytes(ord(next((c for c, leads in _LEADS.items() if b in leads), "-")) for b in range(256))
_NOT_LEADS = bytes(b for b in range(256) if _CLASSES[b] == ord("-"))
# Kana by a second pass that keeps E3 as "k" and the continuation bytes, 81-83 as "x", the others as
# "o": "kx" is then a kana, so one count finds them (three of the raw bytes cost CJK text twice as much).
_KANA_CLASSES = b"".join(b"k" if b == 0xE3 else b"x" if 0x81 <= b <= 0x83 else b"o" for b in range(256))
_NOT_KANA = bytes(b for b in range(256) if b != 0xE3 and not 0x80 <= b <= 0xBF)
# A str of Latin-1 characters stores one byte each (PEP 393): its size, read in O(1), tells that it holds
# none of these scripts' letters, where an encoding that fails costs half a microsecond.
_ONE_BYTE_HEADER = str.__sizeof__("é") - 2

# The language of the document a chunker is reading (set by Chunker.chunk), for sentence rules deep
# inside chunkers that see only text.
CURRENT: ContextVar[str | None] = ContextVar("vera_lab_language", default=None)


def detect_language(text: str, default: str | None = "en", guess: bool = True) -> str | None:
    """The language of ``text``: one of :data:`LANGUAGES`, or ``default`` when nothing decides.

    Letter trigrams (see :data:`TRIGRAM_TABLE`) decide a close vote of common words, and with ``guess``
    a text whose common words and letters decide nothing; without it such a text gets ``default`` (a
    corpus may know better).
    """
    sample = text[:SAMPLE]
    if _is_english(sample):
        return "en"  # the common case, decided by a few scans in C
    script = _script(sample)
    if script:
        return script
    # Short documents make the vote the cost, so its first words decide when they lead by two votes, as
    # the whole sample's must (a lead at least twice the next language's was asked before: the rest was
    # read for a third of Spanish and French UD documents, and 13,579 labelled texts read the same but one).
    cut = sample.rfind(" ", 0, FIRST) if len(sample) > FIRST else len(sample)
    cut = cut if cut > 0 else len(sample)  # no space to cut at: all is read at once
    packed = _packed_votes(sample[:cut])
    votes = _unpacked(packed)
    *_, second, most = sorted(votes)
    if cut < len(sample) and (most < 3 or most - second < 2):
        votes = _unpacked(packed + _packed_votes(sample[cut:]))
        *_, second, most = sorted(votes)
    if most < 2:  # too few function words: a language's own letters vote too ("Hauptgang übel")
        for letter in _LETTER_VOTES.findall(sample.lower()):
            votes[_LETTER_RANK[letter]] += 1
        *_, second, most = sorted(votes)
    if most < 2:  # no Latin-script language's words: code, names and addresses amid Chinese, say
        script = _script(sample, share=0.5)
        return script or (guess and _guessed(sample[:GUESS_CHARS])) or default
    voted = _VOTERS[votes.index(most)]  # ties: the first listed, English
    if most - second > 1:
        return voted
    # A close vote: "la", "de", "que", "un" are words of several languages; their letters tell them apart,
    # among every language within a vote of the leader (a French line of figures has "de" and "en", which
    # Spanish and Dutch share, and one French word fewer: "emploie env. 500 pers.")
    return _guessed(sample[:GUESS_CHARS], {_VOTERS[i] for i, n in enumerate(votes) if n >= most - 1}) or voted


class _Document(Protocol):  # vera_lab.types.Document, which sits beside this module, not below it
    text: str
    metadata: Mapping[str, Any]


def document_language(document: _Document, default: str | None = "en", guess: bool = True) -> str | None:
    """The language ``document`` names (``metadata["language"]``), else the one detected.

    The name is the document's own or its dataset's (``dataset.json``); "auto" names none.
    """
    named = document.metadata.get("language")
    return named if named and named != "auto" else detect_language(document.text, default, guess)


def letter_trigrams(text: str) -> list[str]:
    """The letter trigrams of ``text``'s words, lowercased, each word with a space at either end."""
    return [gram for word in _WORD_LETTERS.findall(text.lower()) for gram in _word_trigrams(word)]


def _word_trigrams(word: str) -> list[str]:
    padded = f" {word} "
    return [padded[i : i + 3] for i in range(len(padded) - 2)]


@functools.cache
def _trigram_scores() -> tuple[tuple[str, ...], dict[str, tuple[float, ...]]]:
    """The guessed languages, and each counted trigram's log-probability in each (add-one smoothed)."""
    table = json.loads(TRIGRAM_TABLE.read_text(encoding="utf-8"))
    counts: dict[str, list[int]] = table["counts"]
    totals = [sum(column) + len(counts) for column in zip(*counts.values(), strict=True)]
    return tuple(table["languages"]), {
        gram: tuple(math.log((c + 1) / total) for c, total in zip(row, totals, strict=True))
        for gram, row in counts.items()
    }


@functools.lru_cache(maxsize=8192)
def _word_scores(word: str) -> tuple[int, tuple[float, ...]]:
    """How many of ``word``'s trigrams the table counts, and their log-probabilities summed per language.

    Words recur (a text's, a corpus's), so each is scored once.
    """
    rows = [row for row in map(_trigram_scores()[1].get, _word_trigrams(word)) if row]
    return len(rows), tuple(map(sum, zip(*rows, strict=True)))


def _guessed(text: str, among: Collection[str] | None = None) -> str | None:
    """The language (of ``among``, or any) whose trigrams ``text``'s fit best, when it leads clearly."""
    languages, _ = _trigram_scores()
    scored = [score for score in map(_word_scores, _WORD_LETTERS.findall(text.lower())) if score[0]]
    counted = sum(n for n, _ in scored)
    if counted < 3:
        return None
    sums = map(sum, zip(*(word_sums for _, word_sums in scored), strict=True))
    totals = sorted(
        (total, language)
        for total, language in zip(sums, languages, strict=True)
        if among is None or language in among
    )
    (second, _), (best, language) = totals[-2], totals[-1]
    return language if best - second >= GUESS_MARGIN * counted else None


def _is_english(sample: str) -> bool:
    """Whether "the", "and" and "of" are frequent in ``sample``: four or more, "the" among them.

    ASCII text is lowered, a fast copy; other text is searched for "the" and "The" as written, which
    spares a slow copy of a text that has neither (every other language's).
    """
    if sample.isascii():
        sample = sample.lower()
        the = sample.count(" the ")
    else:
        the = sample.count(" the ") + sample.count(" The ")
    return the > 0 and the + sample.count(" and ") + sample.count(" of ") >= 4


def _script(sample: str, share: float = 1.0) -> str | None:
    """Japanese, Chinese or Russian when their scripts fill ``sample``, else None.

    ``share`` scales the part of it they must fill: a half where no Latin-script language's words do.
    """
    if str.__sizeof__(sample) <= _ONE_BYTE_HEADER + len(sample) + 1:
        return None
    utf8 = sample.encode()
    size = len(sample.strip() or " ")
    if len(utf8) - len(sample) <= 0.3 * share * size:  # each such letter adds a byte or two: too few of them
        return None
    leads = utf8.translate(_CLASSES, _NOT_LEADS)
    han = leads.count(b"h")
    if han + leads.count(b"k") > 0.2 * share * size:  # kana are among the "k" leads: count them only then
        kana = utf8.translate(_KANA_CLASSES, _NOT_KANA).count(b"kx")
        if kana + han > 0.2 * share * size:
            return "ja" if kana > 0.05 * (kana + han) else "zh"
    return "ru" if leads.count(b"c") > 0.3 * share * size else None


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
