"""Rule-based sentence segmentation with character offsets, fast enough for tens of MB/s.

One regex finds candidate boundaries (terminal punctuation followed by whitespace, CJK stops,
line breaks); a short decision per candidate rejects abbreviations, initials, list numbers and
continuations. Decimals, versions, URLs and e-mail addresses never reach the decision: their dots
are not followed by whitespace.

The rules follow the document's language (:mod:`vera_lab.language`; its word lists and switches are
in :mod:`vera_lab.chunking.sentence_rules`): each language has its own abbreviations (German "bzw.",
French "Mme.", Russian "г."), drops the English ones that are words there (Dutch "op", Spanish
"al"), and knows its sentence openers; German day and rank ordinals
("am 3. Oktober") end no sentence, and a Russian abbreviation after a number or an ordinal ("в 2010
г. Цветки") does before a capital; a month abbreviation before a number ("3 okt. 2019") ends none.
Closing quotes stay with their sentence: German „so.“ and »so.«, French « ainsi. », and a Japanese
quotation 「…。」 followed by と goes on. In any language "!" or "?" right before a Chinese or
Japanese character ends a sentence, as "。" does.
"""

from __future__ import annotations

import bisect
import functools
import re
import string
from collections.abc import Callable
from operator import itemgetter

from vera_lab.chunking.sentence_rules import ENGLISH, NO_HEADLINE_ENDS, TITLE_NOUNS, Rules, rules_for
from vera_lab.chunking.windows import rstrip_at
from vera_lab.language import CURRENT, LANGUAGES, detect_language

_LAST_WORD = re.compile(r"\S{1,40}\Z")
_WORD_AT = re.compile(r"[^\W\d_]+")
# with decimals or thousands ("1,80", "1.250,50") or a case ending (Russian "1990-х", French "19e")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:-\w{1,3}|e|er|re|ème)?")
# A range of abbreviations, its first and its last: "mo.–fr", "mr./mrs"
_RANGE = re.compile(r"(.+)\.[–/](\w{2,})")
_COMPOUND = re.compile(r"(\w{2,})\.-(\w+)")  # a title joined by a hyphen: "dipl.-ing", "univ.-prof"
_ORDINAL_RANGE = re.compile(r"\d{1,3}\.[–-]\d{1,3}")  # "vom 3.–5. Mai"
_DAY_MONTH = re.compile(r"\d{1,2}\.\d{1,2}")
# A numbered clause opening a sentence: "3.2. Он действует", "3.2 Zij geldt"
_CLAUSE = re.compile(r"\d{1,3}(?:\.\d{1,3})+\.?\s+[A-ZÀ-ÖØ-ÞА-ЯЁ]")
_SECTION = re.compile(r"\d{1,3}(?:\.\d{1,3})+")  # "3.1" of "3.1. Le contrat"
_VERSE = re.compile(r"\d{1,3}(?:,|:| ?, ?)\d{1,3}\b")  # a chapter and verse: "3,16", "8:28", "13, 4"
_AMOUNT = re.compile(r"(?:[A-Z]{0,3}\$|[€£¥₽])\s?\d")  # "R$ 20", "US$5", "€ 20"
# An article, account or tax number ("A-12", "ES12 3456", "DE123"), or a telephone number's country code
_CODE = re.compile(r"[A-Z]{1,4}-?\d|\+\d")
_SMILE = re.compile(r"(?:^|\s)[:;]-?\)\Z")  # searched in the few characters before a ") "
# A face or a hand that stands for a stop ("Heute 30 °C in Berlin 😅 Morgen"), not after one, before a capital
_EMOJI_END = re.compile(
    r"(?<![.!?…\s])\s*[\U0001F600-\U0001F64F\U0001F910-\U0001F92F\U0001F970-\U0001F97F\U0001F44D-\U0001F44F]+"
    r"(?=\s+[\"'“‘«(]?[A-ZÀ-ÖØ-ÞА-ЯЁ])"
)
# A str that holds a character beyond U+FFFF, an emoji, stores four bytes a character (PEP 393): its size
# tells so at once, where a regex for them reads about 30 ns a character of every text
_WIDE_HEADER = str.__sizeof__("\U0001f600") - 8
_LIST_ITEM = re.compile(r"(?:[-*•–]|\(?[0-9a-zA-Z]{1,3}[.)])\s")
_OPENERS = "\"'“‘«([{¡¿"
# The last character of Chinese or Japanese writing in a word (Han, kana, CJK and full-width punctuation)
_UNSPACED_CHARACTER = "[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]"
_LAST_UNSPACED = re.compile(f"{_UNSPACED_CHARACTER}(?!.*{_UNSPACED_CHARACTER})")
_CLOSERS = "\"'”’“»«)]"  # “ and « close German quotes: „Ich komme.“ »Ich komme.«
_CLOSING_QUOTES = "\"'”’“»«"  # _CLOSERS but brackets, which close "(...)", an omission
_BULLETS = "•⁃*-–"
_STREETS = ("str", "straße", "strasse", "weg", "platz", "allee", "gasse")  # a house number after them counts

# Names spelt with an exclamation mark, which ends no sentence by itself.
_EXCLAIMED_NAMES = ("Yahoo", "Jeopardy", "Joomla")
# What may follow a time of day inside its sentence: "at 9 a.m. Monday", "5 p.m. EST".
_AFTER_TIME = frozenset(
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mon Tue Wed Thu Fri Sat Sun "
    "UTC GMT CET CEST EST EDT CST CDT MST MDT PST PDT ET CT MT PT BST IST JST AEST".split()
)
# What closes a sentence from a word of its own after its stop: a quote mark that only ever closes,
# standing between spaces ("wil. '' Het publiek" in tokenised Dutch news; "demain. » Puis" in French,
# where a German opening » is followed by its word; a straight quote there opens as often:
# '. " Golpea' in Spanish, unless another one follows to open: 'monde. " "C'est' in French), or a
# smiley ("Danke Rosemarie! :-) Dann" in German reviews).
_SPACED_CLOSER = r"(?:''|”|»|[:;]-?[()DP]|\"(?=\s+\"))(?=\s|\Z)"


_LETTER = r"[^\W\d_]"  # a letter of any script
_BEFORE_WORD = r"[\W\d_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]"  # no letter, or an unspaced one
_SPACED_LETTER = r"[^\W\d_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]"  # a letter of a script with spaces


def _sure_stop(rules: Rules) -> str:
    """A stop the regex alone can call a boundary: the commonest case, kept out of Python.

    The stop follows a closing bracket, closing quote ("«não». O") or percent sign, a word ending in two
    letters (of any script: German, French and Russian words end in ä, é or я as often as English ones in
    a-z) that is no known abbreviation and no dotted initialism ("e.g", "Ph.D"), or a four-digit number ("in
    2019.") that opens no line (where it would number an item); or it is a lone "?" or "!";
    whitespace follows that starts no spaced ellipsis. For such a stop every rule of
    ``_is_stop_boundary`` answers "boundary", so the two always agree; any stop this pattern declines
    goes through those rules.
    """
    by_length: dict[int, list[str]] = {}
    for word in sorted(rules.abbreviations | {"et al"}):  # "al" is a word in Spanish: "et al." is none
        if len(word) >= 2 and word[-2:].isalpha():
            by_length.setdefault(len(word), []).append(word)
    # The abbreviation is the whole word: at the text's start or after a character that is no letter, or a
    # Chinese or Japanese one ("请致电Mr. Wang"), which the rules cut a Latin word from.
    not_abbreviation = "".join(
        rf"(?<!{_BEFORE_WORD}(?i:{_branching(words)})\.)(?<!^(?i:{_branching(words)})\.)"
        for words in by_length.values()
    )
    # A dotted initialism is at most 8 characters long: no dot among the 2-7 before the letters.
    not_initialism = "".join(rf"(?<!\.[^ \n]{{{k}}}\.)" for k in range(2, 8))
    # A word of this many letters is neither an abbreviation nor an initialism: the common long word
    # is spared those ~20 lookbehinds (not Chinese or Japanese letters, which may end in a Latin one).
    long = max(8, max(by_length) + 1)
    word = rf"(?:(?<={_SPACED_LETTER}{{{long}}}\.)|(?<={_LETTER}{{2}}\.){not_abbreviation}{not_initialism})"
    # Four digits are too many for a list number; before them no digit (a longer number is left to the
    # rules), no line break and no opening quote or bracket, after which the number opens a line.
    year = r"(?<=[^\d\n" + re.escape(_OPENERS) + r"][0-9]{4}\.)"
    # An abbreviated ending ("Goethestr.", "GOETHESTR.") is left to the rules, however long the word, in
    # any case as the rules read it; in German so is a word ending in two Roman digits ("Ludwig XIV. ist").
    endings = "".join(rf"(?<!(?i:{re.escape(suffix)})\.)" for suffix in rules.suffixes)
    if rules.ordinals:
        endings += r"(?<![IVXLC]{2}\.)"
    # A lone question or exclamation mark before whitespace ends its sentence by every rule, whatever
    # comes next (French sets them apart: "vraiment ? Oui"), but for a name spelt with "!" ("Yahoo! Inc").
    names = "".join(rf"(?<!{re.escape(name)}!)" for name in _EXCLAIMED_NAMES)
    # Chinese and Japanese characters are letters too: a Latin initial right after them ("由J. Smith重修")
    # is left to the rules, which read it as one
    initial = r"(?<![\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff][A-Za-z]\.)"
    marks = rf"(?<=\?)|(?<=!){names}"
    if rules.marks_go_on:  # before a lowercase word they are left to the rules
        marks = rf"(?:{marks})(?!\s+[{re.escape(_OPENERS)}]{{0,3}}(?={_LETTER})(?![A-ZÀ-ÖØ-ÞА-ЯЁ]))"
    stops = rf"(?:{word}{endings}{initial}|{year}|(?<=[)\]%»”’\"]\.)|{marks})"
    # a dash may open a dialogue tag ("? —dijo"), and no sentence opens with a comma or colon standing
    # alone (",,Door" and ",Für" open Dutch and German quotations)
    # where a lowercase word goes on, a letter that is plainly no capital is left to the rules, which
    # read its case
    lowercase = rf"|(?={_LETTER})(?![A-ZÀ-ÖØ-ÞА-ЯЁ])" if rules.lowercase_continues else ""
    # One closing quote or bracket after the stop ('werfen." "Kein', "gleich.'' Nach", "oben.) Das") keeps
    # it sure before a capital; before a lowercase word a sentence may go on after its quotation ('"Stop!"
    # and ran'), which the rules read. The sentence then ends after the quote, where group "closed" starts.
    closed = r"(?:[\"”»’)]|'')(?P<closed>\s++)(?=[\"'“‘«(\[{]{0,3}[A-ZÀ-ÖØ-ÞА-ЯЁ])"
    # a chapter and verse may follow an abbreviated book of the Bible ("Joh. 3,16"), which the rules know;
    # a closing mark set apart ("avant ven. !!") opens no sentence but in English web text
    verse = r"|\d" if rules.books else ""
    closing_mark = "|[!?]" if rules.marks_go_on else ""
    not_sure = rf"{_SPACED_CLOSER}|[—–]|[,;:](?=\s){closing_mark}{lowercase}{verse}"
    return rf"{stops}(?! \.)(?:(?P<sure>\s++(?!{not_sure})|\Z)|{closed})"


def _branching(words: list[str]) -> str:
    """``words``, all of one length, as one regex alternation that branches letter by letter.

    The regex engine tries an alternation's branches in turn: a word list costs a test a word at every
    stop, a branching one a test a letter (German UD documents: 5.6 -> 5.2 µs a document to scan).
    """
    tails: dict[str, list[str]] = {}
    for word in words:
        tails.setdefault(word[0], []).append(word[1:])
    branches = [re.escape(head) + (_branching(rest) if rest[0] else "") for head, rest in tails.items()]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _candidate_pattern(stops: str, sure_stop: bool = True, rules: Rules | None = None) -> re.Pattern[str]:
    """Candidate boundaries: one of ``stops`` (a set, or the literal full stop), then what may follow it.

    ``sure_stop=False`` leaves every full stop to the rules (the tests compare the two).
    """
    rules = rules or ENGLISH
    return re.compile(
        stops
        + "(?:"
        + (_sure_stop(rules) + "|" if sure_stop else "")
        + r"(?<=[.!?…])[.!?…]*(?: \.(?=[ .\"'”’»)\]]|\Z)[.!?…]*)*"  # a stop, or a spaced ellipsis ". . ."
        r"[\"'”’“»«)\]]*"  # closing quotes and brackets (“ and « close German „quotes.“ »so.«)
        r"(?:\[(?:\d{1,3}|[a-z])\])*"  # reference marks, as text copied from Wikipedia has: "corpo.[13] Na"
        rf"(?:\s+{_SPACED_CLOSER})?(?P<ws>\s+|\Z)"  # a closing quote or smiley standing apart, whitespace
        r"|(?<=[!?.])[!?]*(?P<cjk>)(?=[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff])"  # "!", "?", "." before CJK
        # CJK stops need no space after them; a full-width "．" between digits is a decimal point ("３．５");
        # a stop after the closing bracket belongs to the sentence too ("（附件一。）。"), and so does a stray
        # full stop ("あります。.", but not ".NET" or an ellipsis, "する。...あなた")
        r"|(?:(?<=[。！？｡])|(?<=(?<![0-9０-９])．)(?![0-9０-９]))[。！？｡．]*[」』）”’]*[。！？｡]*(?:\.(?![\w.]))?"
        r"|(?<=\n)\s*)"  # a line break with no stop before it
    )


_LATIN_WORD = frozenset(string.ascii_letters + ".'-")
_OTHER_STOPS = "!?…。！？｡．\n"  # with the half-width "｡" and the full-width "．" of Japanese writing
# Japanese particles that go on after a quotation or title in 「」『』 (no sentence opens with one):
# 「明日行きます。」と言った, 『君の名は。』を見た
_QUOTATIVE = ("と", "って", "を", "が", "は", "に", "の", "で", "も", "へ")
_ANY_STOP = "[." + _OTHER_STOPS + "]"


# Every candidate starts with one character of a set, which lets the regex engine skip ahead fast; in
# text whose only stop is the full stop (most prose paragraphs), a literal first character lets it
# search for that character instead of testing each one against the set, about twice as fast.
@functools.lru_cache(maxsize=16)
def _patterns(language: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The candidate patterns of a language: any stop, and the full stop alone (its sure stops differ)."""
    rules = rules_for(language)
    return _candidate_pattern(_ANY_STOP, rules=rules), _candidate_pattern(r"\.", rules=rules)


# The ") " that may close an enumeration marker: a literal, which the regex engine finds faster than
# str.find finds a two-character string.
_CLOSE = re.compile(r"\) ")
_CJK_TITLE = re.compile(r"《[^《》\n]*》")
# A line that numbers an article, chapter or section, alone or with a title after a space or in brackets:
# "第一条", "第1条（目的）", "第三章 总则" (not "第二条规定的义务由乙方", a line of text that wraps)
_CJK_HEADING = re.compile(
    r"\s*第[0-9０-９一二三四五六七八九十百千〇零]+[条條章節节款項项部編编回篇]"
    r"(?:\s+[^。！？\n]{1,20}|[（(【〔][^。！？\n]{1,20}[）)】〕])?"
)
_INNER_CAPITAL = re.compile(r"[a-zß-öø-ÿ][A-ZÀ-ÖØ-Þ]")  # a name spelt with one: "PostScript", "iPhone"
# A page's number on a line of its own, as PDFs' text holds it: "第 3 页，共 12 页", "3 / 12 ページ"
_CJK_PAGE = re.compile(
    r"\s*(?:第\s*\d+\s*[页頁](?:\s*[，,]\s*共\s*\d+\s*[页頁])?|\d+\s*(?:/\s*\d+\s*)?ページ)\s*"
)
# A label and its colon that open a line: "乙：", "電話：" (not a time, "10:30")
_CJK_FIELD = re.compile(r"[^\s\d：:。][^\s：:。]{0,5}[：:]")
_CJK_LETTER = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff０-９Ａ-Ｚａ-ｚ]")  # kana, Han, full-width
# Columns from which a line without a stop counts as wrapped (text files, e-mail, PDF), not as a heading:
# three quarters of the text's wide lines, within these bounds (a two-column PDF's lines hold about 50)
_WRAP_WIDTH, _NARROWEST_WRAP = 50, 30
# A numbered clause that opens a line: "3.5 Der", "§ 4 Die", "IV. Die" (not "1.200 personas")
_NUMBERED = re.compile(r"(?:\d{1,3}(?:\.\d{1,3})+\.?|§+ ?\d+\w?|[IVX]{1,4}\.)\s+[A-ZÀ-ÖØ-ÞА-ЯЁ]")
_KNOWN = frozenset(LANGUAGES)
# After the colon of "decretar: «Foi um protesto.»": a quotation that opens with a capital and holds a
# stop before it closes, or right after ("«... de merda»."), which a quoted title does not ("Filme:
# «Central do Brasil», de Walter Salles")
_QUOTED_SENTENCE = re.compile(
    r"\s+(?:«[A-ZÀ-ÖØ-Þ][^»]{0,1000}?(?:[.!?…](?=[\s»])|»[.!?…])"
    r"|\"[A-ZÀ-ÖØ-Þ][^\"]{0,1000}?(?:[.!?…](?=[\s\"])|\"[.!?…])"
    r"|“[A-ZÀ-ÖØ-Þ][^”]{0,1000}?(?:[.!?…](?=[\s”])|”[.!?…]))"
)
_CAPITAL = re.compile(r"\s+[A-ZÀ-ÖØ-Þ]")  # after the semicolon of "revenait pas ; Selon"


def sentence_spans(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """Half-open spans of the sentences of ``text``; whitespace between sentences belongs to none.

    ``language`` (see :data:`~vera_lab.language.LANGUAGES`) chooses the rules; by default (or "auto")
    the language of the document being chunked, else the one detected in ``text``; another is refused.
    """
    language = _language(text, language)
    rules = rules_for(language)
    candidates, full_stop_candidates = _patterns(language)
    spans: list[tuple[int, int]] = []
    n = len(text)
    start = _skip_space(text, 0)
    full_stops_only = not any(map(text.__contains__, _OTHER_STOPS))
    cjk_stops = False  # only then may a title's brackets hold a stop
    for m in (full_stop_candidates if full_stops_only else candidates).finditer(text):
        if (kind := m.lastgroup) == "sure" or kind == "closed":  # the regex alone decided: a boundary
            spans.append((start, m.start() + 1 if kind == "sure" else m.start("closed")))
            start = m.end()
            continue
        first = text[m.start()]
        if m.group("cjk") is not None:  # "!", "?" or "." right before Chinese or Japanese text
            if first != "." or _plain_word_ends(text, m.start(), rules):
                spans.append((start, m.end()))
                start = m.end()
            continue
        if first == "\n":
            end, nxt = rstrip_at(text, start, m.start()), m.end()
            if nxt < n and _wraps(text, m.group(), end, nxt, rules):  # a hard-wrapped line continues it
                continue
        elif first in "。！？｡．":
            cjk_stops = True
            end, nxt = m.end(), _skip_space(text, m.end())
            if text[end - 1] in "」』）" and text.startswith(_QUOTATIVE, end):
                continue  # the quotation, or aside ("（以下「乙」という。）は"), is part of the sentence
        else:
            end, nxt = m.start("ws"), m.end()
            stop = m.start()
            short = stop < 2 or text[stop - 1].isdigit() or not text[stop - 2].isalnum()  # cheap pre-check
            if first == "." and short and (marker := _list_marker(text, start, stop, rules)) is not None:
                if marker > start:  # "1. The first item 2. The second": the item before ends here
                    spans.append((start, rstrip_at(text, start, marker)))
                    start = marker
                continue
            if nxt < n and not _is_stop_boundary(text, start, m.start(), end, nxt, m.group("ws"), rules):
                continue
            if nxt < n and text[stop:end] == ". . . ." and text[stop - 1 : stop].isalnum():
                # "compounds. . . . The practice": a full stop on the word, then an ellipsis that marks
                # an omission at the start of the next sentence, which it opens.
                end, nxt = stop + 1, stop + 2
        if end > start:
            spans.append((start, end))
        start = nxt
    if start < n:
        end = rstrip_at(text, start, n)
        if end > start:
            spans.append((start, end))
    return _revised(text, spans, rules, cjk_stops)


def _has_emoji_width(text: str, size: Callable[[str], int] = str.__sizeof__) -> bool:
    """Whether ``text`` may hold an emoji: a character beyond U+FFFF, read from its size in O(1)."""
    return not text.isascii() and size(text) - 4 * len(text) >= _WIDE_HEADER + 4


def _language(text: str, language: str | None) -> str:
    """The language whose rules read ``text``: the one given, else the document's, else the detected one."""
    if language is None or language == "auto":
        return CURRENT.get() or detect_language(text)
    if language not in _KNOWN:
        raise ValueError(f"language={language!r}: one of auto, {', '.join(LANGUAGES)} (None: detected)")
    return language


def _revised(text: str, spans: list[tuple[int, int]], rules: Rules, cjk_stops: bool) -> list[tuple[int, int]]:
    """``spans`` after the passes that read more than one stop, or marks that are none.

    Titles (where ``cjk_stops``, a title's brackets may hold a stop), headlines, colons and semicolons,
    enumerations, smileys and emoji. Most texts need none, which a few checks tell.
    """
    titles = cjk_stops and "《" in text
    wide = _has_emoji_width(text)
    if not (titles or wide or rules.revises or ")" in text):
        return spans
    if titles:
        spans = _join_inside_titles(text, spans)
    if rules.run_in and "\n" not in text:  # with line breaks, a headline has a line of its own
        spans = _split_run_in_headlines(text, spans, rules)
    if rules.colon_quotes and ":" in text and (cuts := _after_marks(text, ":", _QUOTED_SENTENCE)):
        spans = _cut(text, spans, cuts)
    if rules.semicolon_capital and ";" in text and (cuts := _after_marks(text, ";", _CAPITAL)):
        spans = _cut(text, spans, cuts)
    if wide and (ends := [m.end() for m in _EMOJI_END.finditer(text)]):
        spans = _cut(text, spans, ends)
    if ")" in text:  # an enumeration "3) ... 4) ..." splits alone as it does in context
        closes = [match.start() for match in _CLOSE.finditer(text)]
        spans = _split_enumerations(text, spans, closes)
        if smiles := [c for c in closes if text[c - 1] in ":;-"]:  # most ") " close a word or number
            spans = _split_after_smileys(text, spans, smiles)
    return spans


def _after_marks(text: str, mark: str, follows: re.Pattern[str]) -> list[int]:
    """The offsets right after each ``mark`` (one character) that ``follows`` matches after.

    Not inside brackets: "(Sitz in Berlin; Gründung 1900)", "(Müller 2001; Schmidt 2005)" go on. The
    marks are found by str.find, which reads a long text several times faster than a regex scans it.
    """
    offsets = []
    at = text.find(mark)
    while at >= 0:
        if follows.match(text, at + 1) and not _bracket_open(text, max(0, at - 200), at):
            offsets.append(at + 1)
        at = text.find(mark, at + 1)
    return offsets


def _bracket_open(text: str, lo: int, at: int, pairs: tuple[str, ...] = ("()", "[]")) -> bool:
    """Whether a bracket of ``pairs`` opened in ``text[lo:at]`` is still open at ``at``."""
    return any(text.rfind(opener, lo, at) > text.rfind(closer, lo, at) for opener, closer in pairs)


def _join_inside_titles(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join sentences cut by a stop inside Chinese title brackets: "去看《摔跤吧！爸爸》好吗？".

    A look at each title, not at every stop (which cost Chinese text a seventh of its speed), and one
    pass to join, only when a title holds a stop.
    """
    ends_inside = set()  # sentences that end inside a title, to be joined with the next
    for title in _CJK_TITLE.finditer(text):
        k = bisect.bisect_left(spans, title.start() + 1, key=itemgetter(1))  # first to end past its 《
        while k + 1 < len(spans) and spans[k][1] < title.end():
            ends_inside.add(k)
            k += 1
    if not ends_inside:
        return spans
    out: list[tuple[int, int]] = []
    for k, (start, end) in enumerate(spans):
        out.append((out.pop()[0] if k - 1 in ends_inside else start, end))
    return out


def _split_after_smileys(text: str, spans: list[tuple[int, int]], closes: list[int]) -> list[tuple[int, int]]:
    """Cut after a smiley that stands alone before a capitalised word: "wie immer :) Also für".

    Web text ends sentences with them instead of a stop (one after a stop already ends its sentence).
    ``closes`` are offsets of ") ", which a smiling ":)", ":-)", ";)" or ";-)" ends with.
    """
    smiles = (c for c in closes if _SMILE.search(text, max(0, c - 3), c + 1))
    return _cut(
        text, spans, [c + 1 for c in smiles if _next_letter(text, _skip_space(text, c + 1)).isupper()]
    )


def _split_run_in_headlines(text: str, spans: list[tuple[int, int]], rules: Rules) -> list[tuple[int, int]]:
    """Cut between a word and a capitalised article: a headline run into its story ("em greve Os policiais").

    Not where the article begins a title: inside an open quotation ("assistir a «Aluga-se Um Namorado»")
    or after a noun that introduces one ("o jornal O Globo").
    """
    table, gate = rules.run_in_gate  # one scan in C finds where an article may be: most texts, nowhere
    if (first := gate.search(classes := text.encode("latin-1", "replace").translate(table))) is None:
        return spans
    found = (m.start() for m in gate.finditer(classes, first.start()))
    at = [a for a in found if rules.run_in_pattern.match(text, a) and not _begins_title(text, spans, a - 1)]
    return _cut(text, spans, [a - 1 for a in at]) if at else spans


def _begins_title(text: str, spans: list[tuple[int, int]], at: int) -> bool:
    """Whether the capitalised word after ``at`` begins a title: after a title noun, in a quotation.

    Or after a word no headline ends with ("autor de Os Lusíadas").
    """
    before = _word_before(text, at).lower()
    return before in TITLE_NOUNS or before in NO_HEADLINE_ENDS or _inside_quotation(text, spans, at)


def _inside_quotation(text: str, spans: list[tuple[int, int]], at: int) -> bool:
    """Whether a quotation opened in the sentence holding ``at`` is still open there."""
    k = bisect.bisect_right(spans, at, key=itemgetter(0)) - 1
    before = text[max(spans[k][0] if k >= 0 else 0, at - 300) : at]  # a title's quote opens close by
    return (
        before.count("«") > before.count("»")
        or before.count("“") > before.count("”")
        or before.count('"') % 2 == 1
    )


def _cut(text: str, spans: list[tuple[int, int]], cuts: list[int]) -> list[tuple[int, int]]:
    """``spans`` with each span that holds a cut split there (the whitespace after it belongs to neither).

    A bisect per cut, and the spans between cut ones copied as slices: a text with a few cuts pays
    nothing per sentence, one with thousands stays linear.
    """
    out: list[tuple[int, int]] = []
    done = start = 0  # spans[:done] are placed; ``start`` is where the last cut span goes on
    for cut in sorted(cuts):
        k = bisect.bisect_right(spans, cut, key=itemgetter(0)) - 1
        if k < 0 or not spans[k][0] < cut < spans[k][1]:
            continue
        if k >= done:  # the first cut in span k: end the span cut before, copy those between
            if done:
                out.append((start, spans[done - 1][1]))
            out.extend(spans[done:k])
            done, start = k + 1, spans[k][0]
        if cut > start:
            out.append((start, cut))
            start = _skip_space(text, cut)
    if not done:
        return spans
    out.append((start, spans[done - 1][1]))
    out.extend(spans[done:])
    return out


def _plain_word_ends(text: str, stop: int, rules: Rules) -> bool:
    """Whether a full stop right before CJK text ends a Latin-script sentence.

    "She is nice.我们" does; "Mr.田中", "U.S.の" and "etc.など" do not.
    """
    word_start = stop
    while word_start > 0 and text[word_start - 1] in _LATIN_WORD:
        word_start -= 1
    word = text[word_start:stop].lower()
    return len(word) > 1 and "." not in word and word not in rules.abbreviations


def _wraps(text: str, breaks: str, end: int, nxt: int, rules: Rules) -> bool:
    """Whether one line break only wraps a sentence.

    So it does before a lowercase word that opens no list item, and between two Chinese or Japanese
    characters, which have no case (a PDF's lines: "これは父の" then "家です。"), but not after a
    numbered article or chapter heading ("第一条" then "合同标的", "第1条（目的）" then its text). Outside
    English, also before a capital after a comma or a line as wide as its text's lines run (a German
    noun: "in speziellen" then "Anwendungsgebieten benutzt").
    """
    if breaks.count("\n") != 1:
        return False
    if _next_letter(text, nxt).islower():
        return _LIST_ITEM.match(text, nxt) is None
    if rules.held_from_english and _LIST_ITEM.match(text, nxt) is None and _wrapped_line(text, end, nxt):
        return True
    # Chinese or Japanese on either side, a word or number on the other ("事實上 GnuPG" then "可能"), but
    # not after a field narrower than wrapped lines ("件名：RE: 請求書 No. 2024-015", "甲：株式会社ABC")
    if text[nxt] < "\u3040" and (end == 0 or text[end - 1] < "\u3040"):
        return False  # neither is: most line breaks, read cheaply
    before, after = _CJK_LETTER.match(text, end - 1) if end > 0 else None, _CJK_LETTER.match(text, nxt)
    line_start = text.rfind("\n", 0, end) + 1
    return bool(
        (after and (before or text[end - 1].isalnum()) or before and text[nxt].isalnum())
        and not _CJK_HEADING.fullmatch(text, line_start, end)
        and not _CJK_PAGE.fullmatch(text, line_start, end)
        and not (_CJK_FIELD.match(text, line_start) and _columns(text[line_start:end]) < _wrap_width(text))
    )


def _wrapped_line(text: str, end: int, nxt: int) -> bool:
    """Whether the line that ends at ``end`` was wrapped before the one at ``nxt``, not a heading or a field.

    It ends in a comma; or it is at least ``_WRAP_WIDTH`` columns wide, not much narrower than the next
    line (a heading before a paragraph is), and the next line, which opens no numbered clause ("3.5 Der"),
    is as wide or closes the sentence (a form's fields are short lines without stops: "Name: ..., Berlin"
    then "Telefon: 030 123456"; a signature's, blanks: "Name: ______").
    """
    line = text[text.rfind("\n", 0, end) + 1 : end]
    if line.endswith((",", "，", "、")) or line.endswith("-") and line[-2:-1].isalpha():
        return True  # a comma, or a word hyphenated across the break ("Muster-" then "Versicherung AG")
    if line.endswith((":", "：")):
        return False  # a line that introduces what follows: "Am 3. März schrieb Max <max@firma.de>:"
    width = _columns(line)
    if line.endswith("_") or text[nxt] == "_" or _NUMBERED.match(text, nxt):
        return False
    if line.isupper() and width == len(line) or line.lstrip()[:1] == "#":  # a heading: capitals, Markdown
        return False
    line_end = text.find("\n", nxt)  # the next line is measured as this one is, with its indentation
    following = text[text.rfind("\n", 0, nxt) + 1 : line_end if line_end >= 0 else len(text)].rstrip()
    next_width, wrapped = _columns(following), _wrap_width(text)
    return width >= max(wrapped, next_width - 15) and (
        next_width >= wrapped or following.endswith((".", "!", "?", "…", "。", "！", "？"))
    )


@functools.lru_cache(maxsize=8)
def _wrap_width(text: str) -> int:
    """The columns from which a line of ``text`` counts as wrapped: three quarters of its wide lines' width.

    The width of the line at the ninth tenth of its lines by width, bounded by ``_NARROWEST_WRAP`` and
    ``_WRAP_WIDTH``: a text wrapped at 40 columns wraps lines of 30, one wrapped at 72 of 50 (kept for
    each text, which every line break of it reads).
    """
    widths = sorted(_columns(line) for line in text.split("\n") if line.strip())
    wide = widths[len(widths) * 9 // 10] if widths else 0
    return max(_NARROWEST_WRAP, min(_WRAP_WIDTH, wide * 3 // 4))


def _columns(line: str) -> int:
    """The columns ``line`` fills: a Chinese or Japanese character fills two."""
    return len(line) if line.isascii() else len(line) + len(_CJK_LETTER.findall(line))


def _split_enumerations(text: str, spans: list[tuple[int, int]], closes: list[int]) -> list[tuple[int, int]]:
    """Cut before each marker of an inline enumeration without stops: "1) The first 2) The second".

    Most ") " close a parenthesis: "(n = 7) ... (p = 0.006) ". An enumeration needs a marker token
    that succeeds another, so a text with no such pair among the tokens before its ") " (a superset of
    the markers: no sentence starts inside a token) is returned as it is, and only a sentence holding
    two ") " is looked at. ``closes`` are the offsets of every ") ".
    """
    tokens = set()
    for close in closes:
        begin = _enumerator_start(text, 0, close)
        if begin is not None:
            tokens.add(text[begin:close])
    if tokens.isdisjoint(map(_successor, tokens)):
        return spans
    held: dict[int, list[int]] = {}  # sentence index -> the ") " that lie wholly inside it
    for close in closes:
        k = bisect.bisect_left(spans, close + 2, key=itemgetter(1))
        if k < len(spans) and spans[k][0] <= close:
            held.setdefault(k, []).append(close)
    cut = {k: _enumeration_items(text, *spans[k], inside) for k, inside in held.items() if len(inside) > 1}
    if not any(len(items) > 1 for items in cut.values()):
        return spans
    return [item for k, span in enumerate(spans) for item in cut.get(k, (span,))]


def _enumeration_items(text: str, start: int, end: int, closes: list[int]) -> list[tuple[int, int]]:
    """The sentence ``text[start:end]`` cut before every marker that succeeds the one before it."""
    items = []
    previous = None
    for close in closes:
        token = _marker_token(text, start, close)
        if token is not None:
            marker = close - len(token)
            if previous is not None and _successor(previous) == token and marker > start:
                items.append((start, rstrip_at(text, start, marker)))
                start = marker
            previous = token
    items.append((start, end))
    return items


def _enumerator_start(text: str, lo: int, end: int) -> int | None:
    """Start of the enumerator ending at ``end``: 1-3 digits or one lowercase letter, not before ``lo``.

    Capital letters are initials ("J. K. Rowling"), never enumerators.
    """
    begin = end
    while begin > end - 3 and begin > lo and text[begin - 1] in "0123456789":  # not "²": int() refuses it
        begin -= 1
    if begin == end:
        if end == lo or not text[end - 1].islower():
            return None
        begin -= 1
    return begin


def _marker_token(text: str, start: int, close: int) -> str | None:
    """The "2" of "2) " or the "b" of "b) " ending at ``close``, standing alone; else None.

    A ")" that closes an open parenthesis ends no marker: "(n = 24) ... (n = 25)".
    """
    begin = _enumerator_start(text, start, close)
    if begin is None or begin > start and not text[begin - 1].isspace():
        return None
    if _bracket_open(text, start, begin, ("()",)):
        return None
    return text[begin:close]


def _successor(token: str) -> str:
    return str(int(token) + 1) if token.isdigit() else chr(ord(token) + 1)


def _predecessor(token: str) -> str:
    return str(int(token) - 1) if token.isdigit() else chr(ord(token) - 1)


def _list_marker(text: str, start: int, stop: int, rules: Rules) -> int | None:
    """Where an enumeration marker ending at ``stop`` ("2." "b." "• 10.") begins, else None.

    A marker opening the current sentence or an enumeration after a colon returns ``start`` (it is no
    sentence end); a marker that continues an enumeration of the sentence so far ("1. The first item
    2. ...") returns its own start, where the previous item ends, unless it is one of the language's
    abbreviations (Russian "г. Москва, ул. Ленина, д. 1": "г." and "д." are no items).
    """
    token_start = _enumerator_start(text, 0, stop)
    if token_start is None:
        return None
    if token_start > 0 and (text[token_start - 1].isalnum() or text[token_start - 1] == "."):
        # part of a longer word, number or initialism; a section number may open the sentence: "3.1. Le"
        opening = _skip_space(text, start)
        return start if opening < stop and _SECTION.fullmatch(text, opening, stop) else None
    marker = token_start
    if marker > 0 and text[marker - 1] in _BULLETS:
        marker -= 1
    elif marker > 1 and text[marker - 1] == " " and text[marker - 2] in _BULLETS:
        marker -= 2
    if marker > start and not text[marker - 1].isspace():
        return None
    if not text[start:marker].strip():
        return start
    token = text[token_start:stop]
    if token in ("1", "a"):  # an enumeration opens after a colon: "Steps: 1. Sign"
        return start if text[start:marker].rstrip().endswith(":") else None
    if token == "0" or token.lower() in rules.abbreviations:
        return None
    # The enumeration goes on when the previous marker ("1." before "2.") is in the sentence so far.
    previous = _predecessor(token) + "."
    at = text.rfind(previous, start, marker)
    while at >= 0:
        if (at == start or text[at - 1] in _BULLETS or text[at - 1].isspace()) and not text[
            at + len(previous) : at + len(previous) + 1
        ].isalnum():
            return marker
        at = text.rfind(previous, start, at)
    return None


def _skip_space(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return i


def _next_letter(text: str, i: int) -> str:
    """The first character at ``i`` after any opening quotes or brackets."""
    n = len(text)
    for _ in range(3):
        if i < n and text[i] in _OPENERS:
            i += 1
    return text[i] if i < n else ""


def _is_stop_boundary(
    text: str, start: int, stop_start: int, stop_end: int, nxt: int, ws: str, rules: Rules = ENGLISH
) -> bool:
    """Whether the stop at ``stop_start`` ends the sentence that began at ``start``, by ``rules``."""
    if len(ws) > 1 and ws.count("\n") >= 2:  # a blank line always ends a sentence
        return True
    following = text[nxt]
    if following in _OPENERS:
        following = _next_letter(text, nxt)
    lowercase_next = following.islower()
    if following in ",;:" and text[nxt + 1 : nxt + 2].isspace() or following in "!?" and rules.marks_go_on:
        # no sentence opens with a comma or colon standing alone ("Ex. : une pomme", "etc . , had"), nor,
        # outside English, with a closing mark set apart ("avant ven. !!"; English web text writes "?" for
        # a lost character: "WORK. ? WE AT HOME")
        return False
    if following in "—–" and _next_letter(text, _skip_space(text, nxt + 1)).islower():
        return False  # a dialogue tag goes on: "—¿Vienes? —preguntó ella", "— Куда? — спросил он"
    stop = text[stop_start]
    if stop == "…" or stop == "." and stop_end - stop_start > 1 and text[stop_start + 1] in ". ":
        # An ellipsis after a space or bracket, or opening the text, marks an omission ("weakened . . .
        # was", "[...]"), unless a quote closes after it ("nicht sein …“ Dann"); one of four dots is an
        # omission and a full stop ("a period . . . . Next").
        omission = (stop_start == 0 or text[stop_start - 1] in " [(") and stop_end - stop_start < 7
        closed = text[stop_start:stop_end].lstrip(". …")[:1]  # what the dots run into: "“", "]" or nothing
        omission = omission and not (rules.held_from_english and closed and closed in _CLOSING_QUOTES)
        return not (lowercase_next or omission)
    if lowercase_next and "\n" in ws and _LIST_ITEM.match(text, nxt) is not None:
        return True  # "\nb) next item"
    if (
        rules.held_from_english
        and stop == "."
        and ("?" in text[stop_start:stop_end] or "!" in text[stop_start:stop_end])
    ):
        stop = "?"  # an abbreviation's stop, then a mark, ends as the mark does: "Ci vediamo sab.?"
    if lowercase_next and text[stop_end - 1] in _CLOSERS:
        return False  # the sentence goes on after a quotation or parenthesis: '"Stop!" and ran'
    if stop != ".":  # ! and ? end a sentence, also before lowercase as English web text writes: "really? i"
        if lowercase_next and rules.marks_go_on:
            return False  # "«Oh amici! voi non sapete»"
        return not (
            stop == "!" and stop_end - stop_start == 1 and text.endswith(_EXCLAIMED_NAMES, 0, stop_start)
        )
    if rules.held_from_english and "\n" in ws and not lowercase_next and _narrow(text, stop_start):
        return True  # a line of its own ends with it: "Betreff: AW: Termin am Mo." then "Passt mir gut."
    return _full_stop_ends(text, start, stop_start, nxt, following, lowercase_next, rules)


def _narrow(text: str, at: int) -> bool:
    """Whether the line that holds ``at`` is narrower than a wrapped text's lines (a line of its own)."""
    return _columns(text[text.rfind("\n", 0, at) + 1 : at + 1]) < _wrap_width(text)


def _full_stop_ends(
    text: str, start: int, stop_start: int, nxt: int, following: str, lowercase_next: bool, rules: Rules
) -> bool:
    """Whether a full stop ends its sentence, by the word before it (an abbreviation, an initial...)."""
    # The word before the stop; two rfind calls are much cheaper than a regex search.
    lo = max(0, stop_start - 12)
    word_start = max(text.rfind(" ", lo, stop_start), text.rfind("\n", lo, stop_start)) + 1
    if word_start == 0 and lo > 0:  # a word of 12+ characters is no abbreviation, but may end in one
        tail = text[lo:stop_start]
        if tail.isascii() or _LAST_UNSPACED.search(tail) is None:
            return not tail.lower().endswith(rules.suffixes)  # "Doninikus-Zimmermann-Str."
        word_start = lo  # or Chinese or Japanese writing ends in it ("答辩委员：M. Roth"): cut below
    raw = text[word_start:stop_start]
    if not raw or not raw.isprintable():  # another kind of whitespace inside: look properly
        word_match = _LAST_WORD.search(text, max(0, stop_start - 40), stop_start)
        if word_match is None:
            return True
        word_start, raw = word_match.start(), word_match.group(0)
    word = raw.lstrip(_OPENERS)
    if not word.isascii() and (unspaced := _LAST_UNSPACED.search(word)) and unspaced.end() < len(word):
        word = word[unspaced.end() :]  # "导师：K. Schulz": the Latin initial after Chinese text
        word_start = stop_start - len(word)
    abbreviation = _abbreviation_ends(text, start, word, word_start, nxt, following, lowercase_next, rules)
    if abbreviation is not None:
        return abbreviation
    if (
        rules.ordinals
        and word[-1:].isdigit()
        and (_is_ordinal(word.lstrip("-–")) or _ORDINAL_RANGE.fullmatch(word))
    ):
        # "am 3. Oktober", "vom 3.–5. Mai": an ordinal; "Nr. 7. Danach", "S. 5. Dort": a count
        # "ab 3. Unsere": an ordinal is followed by what it orders, never by an article or a pronoun
        before = text[max(0, word_start - 8) : word_start].split()
        if before and _counts(before[-1].lower().rstrip("."), rules) and following.isupper():
            return True
        return _next_word(text, nxt) in rules.starters
    if (
        rules.ordinals
        and lowercase_next
        and (len(word) > 1 and _is_roman(word) or _DAY_MONTH.fullmatch(word))
    ):
        # a ruler's ordinal ("Ludwig XIV. regierte", "Wilhelm II. von Preußen") or a date without its
        # year ("am 24.12. um"); before a capital they may end a sentence, as a time does ("um 10.30. Dann")
        return False
    if len(word) == 1 and word.isalpha():
        return _letter_ends(text, word, word_start, nxt, following, lowercase_next, rules)
    if "." in word and word.replace(".", "").replace("-", "").isalpha() and len(word) <= 8:
        # U.S., e.g., and French hyphenated initials: "J.-P. Sartre", "av. J.-C. Elle"
        if lowercase_next or following.isdigit():
            return False  # "the U.S. economy", "m.i.v. 1 mei", "(i.p.) 24 h later"
        return _initialism_ends(text, start, word_start, nxt, word, rules)
    if word.isdigit() and (word_start == 0 or text[word_start - 1] == "\n"):
        return False  # a numbered list item: "\n1. First"
    return _word_ends(text, word, nxt, rules)


def _word_ends(text: str, word: str, nxt: int, rules: Rules) -> bool:
    """Whether a full stop after an ordinary word ends its sentence.

    It does, also before lowercase in English ("have one. i used to"); a word after an opener may open
    one anyway (Dutch "'s Morgens", "(zie"), and so may a name spelt with an inner capital ("iPhone es",
    "eBay è"). Where a lowercase word goes on (``rules.lowercase_continues``), it does only after what may
    be an abbreviation no list holds: not after a name with an inner capital, a bracket or a whole word
    ("PostScript. man --help", "(barra invertida). man analisará": a command opens the sentence).
    """
    return not (
        rules.lowercase_continues
        and text[nxt].islower()
        and _next_word(text, nxt).islower()
        and not word.endswith((")", "]"))
        and _INNER_CAPITAL.search(word) is None
        and not (len(word) > 4 and word.endswith(rules.whole_word_endings))
    )


def _letter_ends(
    text: str, word: str, word_start: int, nxt: int, following: str, lowercase_next: bool, rules: Rules
) -> bool:
    """Whether a full stop after a single letter ends its sentence: mostly not, it is an initial."""
    if word in "éè":  # no initial: the verb "is" of Portuguese and Italian ("22, é. Cursando")
        return not lowercase_next
    if word in "mM" and _previous_word_is_meridiem(text, word_start):  # "a las 3 p. m. Vamos"
        return following.isupper() and _next_word(text, nxt) not in _AFTER_TIME
    if rules.held_from_english and word.islower() and following.isupper() and _after_number(text, word_start):
        return not _opens_spaced_pair(text, nxt, rules)  # a unit after a number: "à 300 g. Éliminer"
    labelled = _previous_word(text, word_start) if word.isupper() and following.isupper() else ""
    if labelled in rules.labels:
        return True  # "siehe Anh. B. Fehlerberichte", "l'annexe B. Signalez", "Energielabel: C. Bouwjaar"
    opener = _next_word(text, nxt)
    if opener in rules.starters and labelled in rules.groups:
        return True  # "il gruppo B. I gruppi", but a company is named so too: "O grupo A. Silva registou"
    if len(opener) > 1 and opener in rules.starters and _initials_after_surname(text, word_start):
        return True  # "Автор — Пушкин А. С. Он поэт": a name's initials, then a new sentence
    # An initial ("J. K. Rowling") or a one-letter abbreviation ("b. 1950"), but the pronoun
    # after a lowercase word ends a sentence: "you and I. Did you".
    return word == "I" and not lowercase_next and _previous_word_is_lowercase(text, word_start)


def _abbreviation_ends(
    text: str,
    start: int,
    word: str,
    word_start: int,
    nxt: int,
    following: str,
    lowercase_next: bool,
    rules: Rules,
) -> bool | None:
    """Whether a full stop after ``word``, an abbreviation, ends its sentence; None when it is none."""
    lower = word.lower()
    counted, _, abbreviated = lower.partition("-")
    if counted.isdigit() and abbreviated[:1].isalpha():  # "2-комн. кв.", "3-Zi.-Whg. in": after its number
        word, lower = word[len(counted) + 1 :], abbreviated
    # "l'art. 3", "dell'avv. Rossi", "d'env. 5 µm": the abbreviation after an elided article (not "homo's.")
    elided = _after_elision(lower)
    if len(elided) > 1 and elided != lower and elided in rules.abbreviations:
        word, lower = word[len(word) - len(elided) :], elided
    if lower == "al" and text[max(0, word_start - 4) : word_start].lower() in (" et ", "et "):
        return False  # "et al." in any language ("al" is a word of Spanish, Italian and Portuguese)
    if len(word) <= rules.letter_after_number and word.islower() and lower in rules.titles:
        if (ends := _unit_ends(text, start, word_start, nxt, following)) is not None:
            return ends
    if len(word) == 1 and (pair := _spaced_pair(text, word_start, word)):  # the "F" of "a. F."
        if pair in rules.titles:
            return False  # "в т. ч. НДС", as "т.ч." written together
        if pair in rules.soft:  # "UStG a. F. Seit", "Hospizverein e. V. Kennwort": it closes what it follows
            return not (lowercase_next or following.isdigit())
    if len(word) == 1 and word.isupper() and lower in rules.titles and _labelled(text, word_start, rules):
        return None  # a label's letter ("корп. В. Вход"), not the title it spells ("в.", век)
    if lower in rules.titles:
        return False
    if rules.suffixes and lower.endswith(rules.suffixes):
        return False
    if (ranged := _RANGE.fullmatch(lower)) and not rules.titles.isdisjoint(ranged.groups()):
        return False  # a range of abbreviations: "Mo.–Fr. von 9 bis 18 Uhr", "Mo./Di.", "Di.–So. 10–18 Uhr"
    if ranged and ranged.group(2) in rules.soft:  # "lun.–jeu. de 8 h" goes on, as "jeu." alone would
        return not (lowercase_next or following.isdigit())
    if "-" in word and _joins_titles(word, lower, rules):
        return False  # "Dipl.-Ing. Weber", "Univ.-Prof. Dr. Huber", "Lisboa-Sta. Apolónia"
    if lower in rules.books and _VERSE.match(text, nxt):
        return False  # a book of the Bible, then its chapter and verse: "Joh. 3,16", "Кор. 13:4–7"
    if lower in rules.before_number and _is_roman(numeral := _next_word(text, nxt)) and len(numeral) > 1:
        return False  # "sec. XV", "vol. II": a Roman number of two or more letters goes on
    if word == "f" and lower in rules.soft and not _is_number(_word_before(text, word_start)):
        return False  # after a word it is "für": "Inst. f. Informatik"; after a number, "folgende"
    if lower in ("f", "ff") and (cited := _next_word(text, nxt)).isupper() and len(cited) > 1:
        return False  # the pages after, then the law cited: "§§ 823 ff. BGB"
    if lower in rules.soft and (len(word) > 1 or word.islower()) or lower in rules.before_number:
        # a capital "Э." is an initial: "Э. Рязанов"; a number goes on, but for a clause's ("etc. 3.2. Il")
        if _AMOUNT.match(text, nxt) or (rules.held_from_english and _CODE.match(text, nxt)):
            return False  # an amount or a code goes on as a number does: "R$ 20", "Ref. A-12"
        if rules.held_from_english and text[nxt] == "(" and _aside_before_stop(text, nxt):
            return False  # "8.400 Einw. (Stand: 2022).": the sentence ends after the aside
        return not (lowercase_next or following.isdigit() and _CLAUSE.match(text, nxt) is None)
    return None


def _aside_before_stop(text: str, opening: int) -> bool:
    """Whether the bracket opened at ``opening`` closes on its line, before a stop ("(Fa. Abcam).")."""
    close = text.find(")", opening, opening + 200)
    return close > 0 and "\n" not in text[opening:close] and text[close + 1 : close + 2] in (".", "!", "?")


def _unit_ends(text: str, start: int, word_start: int, nxt: int, following: str) -> bool | None:
    """Whether a short lowercase title after a number or a spaced abbreviation ends its sentence.

    "в 2010 г. Цветки", "в 1990-х гг. Многое", "XVIII в. В мае", "au XXe s. Tout", "и т. д. Потом" (but
    "ул. им. Ленина") do, unless it opens the sentence as a time ("В 1812 г. Наполеон вошёл"); None
    where neither is before it.
    """
    before = text[max(0, word_start - 12) : word_start].split()
    if not before or not (_is_number(before[-1]) or len(before[-1]) == 2 and before[-1].endswith(".")):
        return None
    opens = following.isupper() or _CLAUSE.match(text, nxt) is not None
    return opens and len(text[start:word_start].split()) > 2


def _joins_titles(word: str, lower: str, rules: Rules) -> bool:
    """Whether hyphenated ``word`` goes on as its title does.

    A compound title ("Dipl.-Ing", "Univ.-Prof"), or a name that ends in one ("Lisboa-Sta"; not "c-Jun",
    "non-MS").
    """
    compound = _COMPOUND.fullmatch(lower) if ".-" in lower else None
    if compound and not rules.titles.isdisjoint(compound.groups()):
        return True
    head, _, tail = word.rpartition("-")
    return head[:1].isupper() and tail.istitle() and tail.lower() in rules.titles


def _initialism_ends(text: str, start: int, word_start: int, nxt: int, word: str, rules: Rules) -> bool:
    """Whether a dotted word (U.S., a.m., e.g.) before an uppercase word ends its sentence.

    Before lowercase it never does: "e.g. the", "the U.S. economy".
    """
    lower = word.lower()
    end_of_next = nxt
    while end_of_next < len(text) and text[end_of_next].isalpha():
        end_of_next += 1
    next_word = text[nxt:end_of_next]
    if lower in ("a.m", "p.m") and _previous_word_is_time(text, word_start):
        # A time ends its sentence ("left the bank at 6 P.M. Mr. Smith then went") unless a day
        # or time zone follows ("9 a.m. Monday", "5 p.m. EST") or it opens the sentence as an
        # adverbial ("At 5 a.m. Mr. Smith went"). Without a number before, A.M. is initials.
        return next_word not in _AFTER_TIME and len(text[start:word_start].split()) > 2
    if word.islower() or lower in rules.company_forms:
        return True  # lowercase initialisms end sentences ("send it a.s.a.p. Then"), as company forms do
    # A dotted initialism (U.S., Ph.D): a new sentence only before a clear sentence starter.
    return next_word in rules.starters


def _counts(word: str, rules: Rules) -> bool:
    """Whether a number after ``word`` counts rather than orders: "Nr. 7.", "Hauptstr. 5.", "Goetheweg 5."."""
    return word in rules.counted or bool(rules.counted) and word.endswith(_STREETS)


def _next_word(text: str, nxt: int) -> str:
    """The letters starting at ``nxt`` (none when it is no letter)."""
    word = _WORD_AT.match(text, nxt)
    return word.group() if word else ""


def _is_ordinal(word: str) -> bool:
    """Digits a German full stop makes an ordinal: "am 3. Mai"; a range's end without its dash ("1. -3.")."""
    return word.isdigit() and len(word) <= 3


def _is_number(word: str) -> bool:
    """A number, a Roman numeral or either as a French ordinal: "1990", "1990-х", "XVIII", "19e", "XXe"."""
    return bool(_NUMBER.fullmatch(word)) or _is_roman(word) or _is_roman(word.removesuffix("e"))


def _is_roman(word: str) -> bool:
    return bool(word) and len(word) <= 6 and all(ch in "IVXLC" for ch in word)


def _previous_word_is_time(text: str, word_start: int) -> bool:
    """Whether a clock time ("5", "10:30", "6.15") comes right before ``word_start``."""
    before = text[max(0, word_start - 12) : word_start].split()
    return bool(before) and before[-1].replace(":", "").replace(".", "").isdigit()


def _previous_word_is_meridiem(text: str, word_start: int) -> bool:
    """Whether a spaced "a." or "p." after a clock time comes right before ``word_start`` ("3 p. m.")."""
    before = text[max(0, word_start - 16) : word_start].split()
    clock = before[-2].replace(":", "").replace(".", "") if len(before) > 1 else ""
    return before[-1:] in (["a."], ["p."]) and clock.isdigit()


def _initials_after_surname(text: str, word_start: int) -> bool:
    """Whether the initial at ``word_start`` follows a name: "Пушкин А. С.", "Hans-Peter M.", "Exhibit C."."""
    before = text[max(0, word_start - 40) : word_start].split()
    if before and len(before[-1]) == 2 and before[-1][0].isupper() and before[-1][1] == ".":
        before.pop()  # the first of two initials: "А." of "Пушкин А. С."
    # a word in capitals is a heading or an acronym: "RECITALS\nA. The", "Mac OS X. The"
    return bool(before) and before[-1][:1].isupper() and before[-1][-1].isalpha() and not before[-1].isupper()


def _spaced_pair(text: str, word_start: int, word: str) -> str:
    """The pair ``word`` closes, "a.f" for the "F" of "a. F." (a lowercase letter and its stop before it).

    "" where there is none.
    """
    before = text[max(0, word_start - 4) : word_start] if word.isalpha() else ""  # not "»", "6"
    if len(before) < 3 or not before.endswith(". ") or not before[-3].islower():
        return ""
    if len(before) == 4 and before[0].isalnum():  # "ca. F." is no pair
        return ""
    return f"{before[-3]}.{word.lower()}"


def _word_before(text: str, word_start: int) -> str:
    """The word before ``word_start`` as written, "" at the text's start."""
    before = text[max(0, word_start - 30) : word_start].split()
    return before[-1] if before else ""


def _after_elision(word: str) -> str:
    """``word`` without an elided article before it: "annexe" of "l'annexe", "art" of "dell’art"."""
    return word.replace("’", "'").rpartition("'")[2]


def _after_number(text: str, word_start: int) -> bool:
    return _is_number(_word_before(text, word_start))


def _opens_spaced_pair(text: str, nxt: int, rules: Rules) -> bool:
    """Whether the letter before ``nxt`` opens a spaced abbreviation, whose next part is stopped.

    The part is a letter or an abbreviation with a stop of its own: "63 a. C. Augusto", "14 n. Chr.",
    "S. 1 i. V. m.".
    """
    part = _next_word(text, nxt)
    return text.startswith(".", nxt + len(part)) and (len(part) == 1 or part.lower() in rules.abbreviations)


def _labelled(text: str, word_start: int, rules: Rules) -> bool:
    """Whether the word before ``word_start`` is a noun that a letter labels ("Anhang", "Energielabel:")."""
    return _previous_word(text, word_start) in rules.labels


def _previous_word(text: str, word_start: int) -> str:
    """The word before ``word_start``, lowercase, without its stop, colon or elided article ("l'annexe")."""
    return _after_elision(_word_before(text, word_start).lower().rstrip(".:"))


def _previous_word_is_lowercase(text: str, word_start: int) -> bool:
    return _word_before(text, word_start)[:1].islower()
