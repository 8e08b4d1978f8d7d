import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.strategies import nasty_text
from vera_lab.chunking import segment
from vera_lab.chunking.segment import sentence_spans

with (Path(__file__).parent / "data" / "sentence_gold.jsonl").open(encoding="utf-8") as gold:
    GOLD = [json.loads(line) for line in gold]


def test_gold_set_is_large_and_covers_the_hard_cases():
    assert len(GOLD) >= 150
    categories = {c["category"] for c in GOLD}
    assert {"abbrev", "initials", "numbers", "ellipsis", "quotes", "lists", "urls", "newlines"} <= categories


@pytest.mark.parametrize("case", GOLD, ids=lambda c: c["text"][:40])
def test_gold_case(case):
    text = case["text"]
    assert [text[a:b] for a, b in sentence_spans(text)] == case["sentences"]


def test_spans_are_ordered_and_trimmed():
    text = "  One. Two!\n\n Three?  "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["One.", "Two!", "Three?"]
    assert all(b <= a2 for (_, b), (a2, _) in zip(spans, spans[1:], strict=False))


# Pieces that drive the passes after the candidate scan: run-in headlines (Portuguese articles after a
# word or "%"), titles in Chinese brackets, quotations, smileys and enumerations.
SPAN_PIECES = ["O ", "A ", "Os ", "Em ", "greve ", "3% ", "jornal ", "«", "»", '"', "《", "》", "！", "。", "好",
               ". ", "? ", ":) ", "1) ", "2) ", "\n", " ", "word ", "a", "Z"]  # fmt: skip


@given(
    st.lists(st.sampled_from(SPAN_PIECES), max_size=30).map("".join),
    st.sampled_from([None, "pt", "zh", "es", "de"]),
)
@settings(max_examples=300, deadline=None)
def test_spans_are_ordered_trimmed_and_hold_every_character_but_whitespace(text, language):
    spans = sentence_spans(text, language)
    assert all(a < b for a, b in spans)
    assert all(b <= a2 for (_, b), (a2, _) in zip(spans, spans[1:], strict=False))
    assert all(text[a:b] == text[a:b].strip() for a, b in spans)
    # ordered and apart, so each character but whitespace lies in exactly one span
    assert "".join("".join(text[a:b] for a, b in spans).split()) == "".join(text.split())


# Around an article: what the run-in gate's classes tell apart (letters it keeps, others, digits, "%", "?"
# that stands for a character beyond Latin-1, such characters themselves, other whitespace, punctuation).
GATE_PIECES = ["O", "A", "Os", "Uma", "Para", "Conforme", "Co", "OS", "Ma", "Mas", "o", "s", "onforme", "x", "é",
               "Ç", "3", "%", "?", "“", "ж", "中", "😅", " ", " ", " ", "\u00a0", "\t", ".", ",", "_", "\n"]  # fmt: skip


@given(st.lists(st.sampled_from(GATE_PIECES), max_size=40).map("".join))
@example("greve Os policiais")
@example("3% A taxa, ж O caso, 😅 Um dia, 中 Conforme o")
@settings(max_examples=400, deadline=None)
def test_the_run_in_gate_finds_every_article_the_pattern_does(text):
    rules = segment.rules_for("pt")
    table, gate = rules.run_in_gate
    passed = [m.start() for m in gate.finditer(text.encode("latin-1", "replace").translate(table))]
    found = [m.start() for m in rules.run_in_pattern.finditer(text)]
    assert [a for a in passed if rules.run_in_pattern.match(text, a)] == found


def test_digits_that_are_not_ascii_are_no_enumerators():
    assert sentence_spans("0\r².") == [(0, 4)]  # hypothesis found int("²") failing here
    assert sentence_spans("Steps: 1. one 2. two") == [(0, 13), (14, 20)]  # ASCII: an enumeration
    assert sentence_spans("Steps: ¹. one ². two") == [(0, 9), (10, 16), (17, 20)]  # superscripts: not one


@pytest.mark.parametrize(
    ("text", "language", "sentences"),
    [
        ("It was founded in 1900.[1][2] The city grew.", "en", ["It was founded in 1900.[1][2]", "The city grew."]),
        ("It rose.[a] Then it fell.", "en", ["It rose.[a]", "Then it fell."]),
        ("It was found.[13] and then lost.", "en", ["It was found.[13] and then lost."]),
        ("Drug toxicity.[32], [33] Other work.", "en", ["Drug toxicity.[32], [33] Other work."]),
        ("Os oficiais mantinham a disciplina.[13] Na Marinha, isso mudou.[14]", "pt",
         ["Os oficiais mantinham a disciplina.[13]", "Na Marinha, isso mudou.[14]"]),
    ],
)  # fmt: skip
def test_reference_marks_after_a_stop_stay_with_their_sentence(text, language, sentences):
    """Text copied from Wikipedia: before, "disciplina.[13] Na" was no boundary at all."""
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Pick one 1) red 2) green 3) blue", ["Pick one 1) red", "2) green", "3) blue"]),
        ("Options: a) one b) two", ["Options: a) one", "b) two"]),
        # Successive numbers inside parentheses, or in two sentences, or not successive: no enumeration.
        ("The groups (n = 7) and (n = 8) differ", ["The groups (n = 7) and (n = 8) differ"]),
        ("It was 1) odd. Then 2) even", ["It was 1) odd.", "Then 2) even"]),
        ("Steps 2) here 4) there", ["Steps 2) here 4) there"]),
    ],
)
def test_inline_enumerations_without_stops(text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text)] == sentences


# Words that end in two letters, abbreviations, initialisms and brackets before a stop: what the
# regex's fast path decides on its own, beside what it must leave to the rules.
STOP_WORDS = [
    "cells", "ed", "red", "Ed", "ms", "terms", "Mr", "mr", "MR", "al", "et al", "trial", "no", "No",
    "U.S", "e.g", "i.e", "Ph.D", "a.m", "P.M", "x.yzab", "DNA", "I", "a", "(b)", "[12]", "5%", "2019",
    "(approx", "\"sept", "co-ed", "9", "organization", "Messrs", "approximately", "x.abcdefgh",
    "\".abcdefg", "\".abcdefgh", "\n2019", "12019", "(2019", "\"2019", "x2019", "a.2019", "\t2019",
    "\u0663" "2019", "\r2019",
    # words of other scripts: the fast path reads letters of any script, abbreviations included
    "Müller", "café", "было", "Straße", "Tätigkeitsbeschreibungen", "гг", "ГГ", "др", "xгг", "2гг", "вв",
    "déc", "éd", "Éd", "núm", "pág", "ggü", "o.ä", "n.º", "Goethestr", "GOETHESTR", "«гг", "Yahoo", "MyYahoo",
    "Joomla", "XIV", "Ludwig XIV", "MIX", "XIVth", "24.12", "J.-C", "I.-S", "non-u.s", "3 p. m", "9 a. m",
    "1990-х гг", "5 тыс. руб", "Hbf", "m.i.v", "XXe s", "N.B", "P.-S", "sec", "ул. им", "homo's", "н. э", "Mo.–Fr", "Mr./Mrs", "Hauptstr. 5", "Goetheweg 12", "rd", "3.–5", "inc", "8.30 u", "В 1812 г", "моск. вр", "Gl. 3", "Пушкин А. С", "OS X", "Exhibit C", "Hans-Peter M", "dom", "par", "у. е", "Э", "Sonderausg", "sett",
    # a closing quote before the stop ("«não». O"), which the fast path takes as it takes a bracket
    "«não»", "«Sr»", "«etc»", '"A"', "“U.S.”", "‘x’", "”", "»", '"2019"', "(a)»", "n.º»", "’s’",
]  # fmt: skip
AFTER_STOP = [" ", "  ", "\n", "\n\n", " . . ", "", "\t"]
NEXT_WORDS = ["The", "the", "Mr", "3", "(see", '"Quoted', "Monday", "EST", "b)", "2.", "", "regierte", "Elle",
              "—dijo", "— спросил", "— The", "–", "XV", "Ленина", ", then", ": une", ";", ",,Door", ",Für", "Он"]  # fmt: skip
# Mostly full stops; question marks alone, set apart as French sets them, or with others ("?!", "? ."),
# before a spaced closing quote, or closed by a quote or bracket right after.
STOPS = [".", ".", ".", "?", " ?", "?!", "??", "!", " !", "!!", "!?", "? .", "? »", "! :-)",
         '."', ".''", ".)", '!"', "?»", ".”", ".’", '.")']  # fmt: skip
stop_text = st.lists(
    st.tuples(
        st.sampled_from(STOP_WORDS),
        st.sampled_from(STOPS),
        st.sampled_from(AFTER_STOP),
        st.sampled_from(NEXT_WORDS),
    ).map(lambda t: f"{t[0]}{t[1]}{t[2]}{t[3]} "),
    min_size=1,
    max_size=12,
).map("".join)


@given(st.one_of(stop_text, nasty_text), st.sampled_from(["en", "de", "fr", "nl", "ru", "es", "pt", "it"]))
@example("x.yzab. the end.", "en")  # a dotted initialism the fast path must decline
@example("The book, ed. by her, and co. Smith.", "en")  # abbreviations
@example("It rained. . . and then it stopped.", "en")  # a spaced ellipsis
@example("Er kam bzw. ging. Am 3. Mai war es.", "de")  # a language's own abbreviation and an ordinal
@example("В 1990 гг. Было. Это было. Он др. Ушёл.", "ru")  # Cyrillic words and abbreviations
@example("Er wohnt in der GOETHESTR. Dort war es.", "de")  # an abbreviated ending in capitals
@example("Ludwig XIV. regierte. Band IV. Der Rest. MIX. dann", "de")  # Roman numerals: left to the rules
@example("Vraiment ? Oui. Et toi ? « Non. » Pourquoi ?! Bon ? » Fin ?", "fr")  # question marks
@example("Yahoo! Inc went up! Joomla! Sites work! Great !", "en")  # names spelt with "!"
@example("有意者请致电Mr. Wang. 我们都用Python. Then 由J. Smith.", "en")  # Latin words run into Chinese text
@example('Er rief: "Komm." "Kein Problem." Gut (siehe oben.) Das ist klar.\'\' Nach "Stop!" and ran', "de")
@example("Sie hat 8.400 Einw. (Stand: 2022). Gut. 5 km nördl. (A) Das.", "de")  # an aside after a soft one
@example('Disse «não». O resto. «Sr». Sim. «etc». E "A". B «U.S.». C', "pt")  # a stop after a closing quote
@example('He said "no". Then "e.g". And “U.S.”. The end ‘x’. the ’. A ”. B', "en")
@settings(max_examples=400, deadline=None)
def test_the_fast_path_agrees_with_the_rules(text, language):
    from unittest.mock import patch

    fast = sentence_spans(text, language)
    rules = segment.rules_for(language)
    every_stop_to_the_rules = (
        segment._candidate_pattern(segment._ANY_STOP, sure_stop=False, rules=rules),
        segment._candidate_pattern(r"\.", sure_stop=False, rules=rules),
    )
    assert every_stop_to_the_rules[0].pattern != segment._patterns(language)[0].pattern
    with patch.object(segment, "_patterns", lambda _: every_stop_to_the_rules):
        assert sentence_spans(text, language) == fast


@given(st.one_of(stop_text, nasty_text).map(lambda t: "".join(c for c in t if c not in segment._OTHER_STOPS)))
@settings(max_examples=300, deadline=None)
def test_text_with_only_full_stops_finds_the_same_candidates_by_either_pattern(text):
    def found(pattern):
        return [(m.span(), m.lastgroup) for m in pattern.finditer(text)]

    candidates, full_stop_candidates = segment._patterns("en")
    assert found(full_stop_candidates) == found(candidates)


@pytest.mark.parametrize(
    ("text", "wide"),
    [
        ("abc", False),
        ("ab é", False),
        ("“中文”", False),
        ("中" * 1000, False),
        ("a😅", True),
        ("中文😅" * 50, True),
    ],
)
def test_a_text_that_may_hold_an_emoji_is_told_by_its_size(text, wide):
    # only a character beyond U+FFFF makes a str four bytes a character, whatever came before it
    assert segment._has_emoji_width(text) is wide
