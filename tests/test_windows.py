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
    # After 4+3, the 3 would not fit beside the 8: a window (2, 3) inside (1, 3); the next starts at 8.
    assert pack([5, 4, 3, 8, 0, 2], 10, overlap=4) == [(0, 2), (1, 3), (3, 6)]
    # the same with exact measures, and with sentences repeated: two, one, or none where none fits
    assert pack([5, 4, 3, 8, 0, 2], 10, overlap=4, exact=lambda i, j: sum([5, 4, 3, 8, 0, 2][i:j])) == [
        (0, 2), (1, 3), (3, 6)
    ]  # fmt: skip
    assert pack([3, 3, 3, 3, 6], 9, overlap_pieces=2) == [(0, 3), (1, 4), (3, 5)]
    assert pack([12, 1], 10) == [(0, 1), (1, 2)]  # a piece above size still makes a window
    assert pack([], 10) == []
