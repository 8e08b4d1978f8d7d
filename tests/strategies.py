"""Hypothesis strategies for nasty text."""

from hypothesis import strategies as st

FRAGMENTS = [
    "Dr. ",
    "e.g. ",
    "U.S. ",
    "et al. ",
    "3.14 ",
    "v1.2.3 ",
    "... ",
    "…",
    "?! ",
    '"Go." ',
    "(see above.) ",
    "\r\n",
    "\n\n",
    "\n",
    "\t",
    "   ",
    "😀",
    "👩‍👩‍👧",
    "naïve ",
    "日本語。",
    "\u200b",
    "\u0301",
    "\x00",
    "https://example.com/a.b ",
    "jane@example.org ",
    "1. ",
    "- ",
    "A",
    "b",
    "word ",
    "Sentence. ",
    "x" * 300,
    " ",
]

nasty_text = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=400),
    st.lists(st.sampled_from(FRAGMENTS), max_size=80).map("".join),
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS), st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
        ),
        max_size=60,
    ).map("".join),
)

SPECIAL_CASES = ["", " \n\t  \r\n ", "y" * 50_000, "no punctuation at all " * 40, "😀" * 700]
