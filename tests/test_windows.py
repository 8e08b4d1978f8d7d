from hypothesis import given, settings
from hypothesis import strategies as st

from vera_lab.chunking.windows import pack


@given(st.lists(st.integers(0, 60), max_size=40), st.integers(1, 100), st.data())
@settings(max_examples=500, deadline=None)
def test_packing_by_totals_gives_the_windows_of_packing_piece_by_piece(measures, size, data):
    overlap = data.draw(st.integers(0, size - 1))

    def additive(i: int, j: int) -> int:  # measuring windows takes the piece-by-piece loop
        return sum(measures[i:j])

    assert pack(measures, size, overlap=overlap) == pack(measures, size, overlap=overlap, exact=additive)


def test_packing_by_totals_exact_windows():
    # 5+4 fits 10, 5+4+3 does not; the next window repeats the trailing pieces within 4: just the 4.
    assert pack([5, 4, 3, 8, 0, 2], 10, overlap=4) == [(0, 2), (1, 3), (2, 3), (3, 6)]
    assert pack([12, 1], 10) == [(0, 1), (1, 2)]  # a piece above size still makes a window
    assert pack([], 10) == []
