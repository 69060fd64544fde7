"""The plain YINSH reference (tests/yinsh_reference.py) against hand-worked positions.

Every position is drawn in its test's docstring (row 11 on top, columns A..K
across: ``W``/``B`` white/black rings, ``w``/``b`` markers, ``.`` empty) and
every expected set is worked out by hand from that drawing. In the drawing a
column is a vertical line, a row number a horizontal line, and the third line
direction (column +1, row +1) runs up and to the right.
"""

import numpy as np
import pytest
import yinsh_reference as Y
from yinsh_reference import N, PASS, RefYinsh, parse_diagram, point, row_action

WHITE, BLACK = 0, 1


def ij(name: str) -> tuple[int, int]:
    """The array cell of a point name by the contract's formula, independent of the reference."""
    return 11 - int(name[1:]), "ABCDEFGHIJK".index(name[0])


def position(doc: str, to_move: int, **kw) -> RefYinsh:
    """The position drawn in ``doc``."""
    rings, markers = parse_diagram(doc)
    return RefYinsh.from_position(rings, markers, to_move, **kw)


def legal(s: RefYinsh) -> set[int]:
    return set(int(a) for a in np.flatnonzero(s.legal_mask()))


def points(*names: str) -> set[int]:
    return {point(n) for n in names}


def snapshot(s: RefYinsh) -> tuple:
    return (dict(s.rings), dict(s.markers), s.to_move, s.kind, s.chosen, s.rings_removed, s.pool,
            s.passes, s.terminal, s.returns())


def both_rows_doc() -> str:
    """The position of test_rows_for_both_players_mover_first_then_the_opponent_before_moving."""
    return test_rows_for_both_players_mover_first_then_the_opponent_before_moving.__doc__


def move(s: RefYinsh, start: str, end: str) -> None:
    s.apply(point(start))
    s.apply(point(end))


# ------------------------------------------------------------------ geometry


def test_point_names_and_row_actions_follow_the_array_formula():
    # point = (11 - row) * 11 + column
    assert point("A5") == 6 * 11 + 0 == 66
    assert point("K10") == 1 * 11 + 10 == 21
    assert point("E1") == 10 * 11 + 4 == 114
    assert point("G11") == 0 * 11 + 6 == 6
    assert [Y.name(p) for p in (66, 21, 114, 6)] == ["A5", "K10", "E1", "G11"]
    # The table of docs/rules/yinsh.md section 1: A 2-5, B 1-7, ..., K 7-10.
    spans = [(2, 5), (1, 7), (1, 8), (1, 9), (1, 10), (2, 10), (2, 11), (3, 11), (4, 11), (5, 11), (7, 10)]
    valid = {(11 - r) * 11 + c for c, (lo, hi) in enumerate(spans) for r in range(lo, hi + 1)}
    assert set(Y.VALID_POINTS) == valid and len(valid) == 85
    # N + d * N + s
    assert row_action("E5", 0) == 121 + 70
    assert row_action("E5", 2) == 121 + 242 + 70
    assert row_action("A2", 1) == 121 + 121 + 99
    for bad in ("A1", "A6", "K6", "K11", "L5", "E0", "E", "5E", ""):
        with pytest.raises(ValueError):
            point(bad)
    for p in (0, 10, 120, -1, 121):  # A11, K11, K1: corners of the array off the board
        with pytest.raises(ValueError):
            Y.name(p)
    with pytest.raises(ValueError, match="leaves the board"):
        row_action("E8", 0)  # E8..E12, but column E stops at 10
    with pytest.raises(ValueError, match="leaves the board"):
        row_action("H11", 1)
    with pytest.raises(ValueError, match="direction"):
        row_action("E5", 3)


def test_the_diagram_round_trips_and_rejects_symbols_off_the_board():
    doc = test_a_ring_stops_after_the_first_run_and_never_passes_a_ring.__doc__
    rings, markers = parse_diagram(doc)
    assert rings == {"G11": 1, "B6": 1, "E4": 1, "B4": 0, "H4": 0, "C2": 0}
    assert len(markers) == 11 and markers["E5"] == WHITE and markers["E9"] == BLACK
    s = RefYinsh.from_position(rings, markers, BLACK)
    assert parse_diagram(s.diagram()) == (rings, markers)
    bad = s.diagram().replace(" 1   . . . .", " 1 w . . . .")  # A1 is off the board
    with pytest.raises(ValueError, match="A1"):
        parse_diagram(bad)


# ------------------------------------------------------------------ placement


def test_placement_white_first_alternating_on_empty_points_then_white_moves():
    s = RefYinsh()
    assert (s.kind, s.to_move, s.terminal, s.pool) == ("place", WHITE, False, 51)
    assert legal(s) == set(Y.VALID_POINTS)
    names = ["E5", "F6", "A2", "K10", "G11", "B1", "J5", "C8", "H3", "D9"]
    for k, nm in enumerate(names):
        assert s.to_move == k % 2 and s.kind == "place"
        assert point(nm) in legal(s)
        if k:
            with pytest.raises(ValueError, match="not legal"):
                s.apply(point(names[k - 1]))  # occupied
        s.apply(point(nm))
    assert s.rings == {point(nm): k % 2 for k, nm in enumerate(names)}
    assert (s.kind, s.to_move, s.markers, s.pool) == ("choose_ring", WHITE, {}, 51)


# ------------------------------------------------------------------ moves


def test_a_ring_stops_after_the_first_run_and_never_passes_a_ring():
    """The seed's figure (A)/(B), black ring at E4, black to move.

       A B C D E F G H I J K
    11             B . . .
    10         . . . . . . .
     9       . b . . . . . .
     8     . . w . . . w . .
     7   . . . w . . b . . .
     6   B . . b . w . . .
     5 . . . . w . . . . .
     4 . W . . B w b W .
     3 . . . . b . . .
     2 . . W . . . .
     1   . . . .

    From E4: up E5..E9 are markers, so only E10; up-right F5 is empty, then
    the run G6 H7 I8, so F5 and J9 but not K10; right F4 G4 then the ring H4:
    nothing; down E3 then E2: only E2, not E1; down-left D3, then the ring C2:
    D3 only; left D4 C4 then the ring B4: D4, C4, not A4.
    The move E4-E10 leaves a black marker on E4 and flips E5..E9.
    """
    s = position(test_a_ring_stops_after_the_first_run_and_never_passes_a_ring.__doc__, BLACK)
    assert (s.kind, s.to_move) == ("choose_ring", BLACK)
    assert legal(s) == points("E4", "B6", "G11")  # each has an empty neighbour
    s.apply(point("E4"))
    assert (s.kind, s.to_move, s.chosen) == ("destination", BLACK, point("E4"))
    assert legal(s) == points("E10", "F5", "J9", "E2", "D3", "D4", "C4")
    for bad in ("K10", "E1", "A4", "C2", "G4", "I4", "E5"):
        with pytest.raises(ValueError, match="not legal"):
            s.apply(point(bad))
    before = dict(s.markers)
    s.apply(point("E10"))
    after = dict(before)
    after[point("E4")] = BLACK
    for nm, new in (("E5", BLACK), ("E6", WHITE), ("E7", BLACK), ("E8", BLACK), ("E9", WHITE)):
        after[point(nm)] = new
    assert s.markers == after
    assert s.rings[point("E10")] == BLACK and point("E4") not in s.rings
    assert (s.kind, s.to_move, s.pool) == ("choose_ring", WHITE, 51 - 11 - 1)


def test_jumped_markers_flip_and_the_start_marker_does_not():
    """White ring D6 moves down over D5 D4 D3 and must stop on D2.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . W .
     9       . . . . . . . .
     8     . . . . . . . . W
     7   . . . . . . . . . .
     6   . . W . . . . . .
     5 . . . b b . . . . .
     4 . . w w . . . . .
     3 . . . b . . . B
     2 . B . . . . .
     1   . B . .
    """
    s = position(test_jumped_markers_flip_and_the_start_marker_does_not.__doc__, WHITE)
    s.apply(point("D6"))
    assert point("D2") in legal(s) and point("D1") not in legal(s)
    s.apply(point("D2"))
    colours = {Y.name(p): c for p, c in s.markers.items()}
    assert colours == {"D6": WHITE, "D5": WHITE, "D4": BLACK, "D3": WHITE, "E5": BLACK, "C4": WHITE}
    assert (s.kind, s.to_move, s.pool) == ("choose_ring", BLACK, 51 - 5 - 1)


# ------------------------------------------------------------------ rows


def test_a_row_of_six_offers_both_fives():
    """White moves D5 up to D6; the marker left on D5 makes A5..F5 six white.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . W .
     9       . . . . . . . .
     8     . . . . . . . . W
     7   . . . . . . . . . .
     6   . . . . . . . . .
     5 w w w W w w . . . .
     4 . . . . . . . . .
     3 . . . . . . . B
     2 . B . . . . .
     1   . . . B

    Rows of white: A5-E5 and B5-F5 (direction 1, letter increasing).
    """
    s = position(test_a_row_of_six_offers_both_fives.__doc__, WHITE)
    move(s, "D5", "D6")
    assert (s.kind, s.to_move, s.pool) == ("remove_row", WHITE, 51 - 5 - 1)
    assert legal(s) == {row_action("A5", 1), row_action("B5", 1)}
    for first, left in (("A5", "F5"), ("B5", "A5")):
        t = s.copy()
        t.apply(row_action(first, 1))
        assert {Y.name(p) for p in t.markers} == {left} and t.pool == 50
        assert (t.kind, t.to_move) == ("remove_ring", WHITE)
        assert legal(t) == points("D6", "J10", "K8")
        t.apply(point("K8"))
        assert t.rings_removed == (1, 0) and point("K8") not in t.rings
        assert (t.kind, t.to_move) == ("choose_ring", BLACK)
    assert s.kind == "remove_row" and len(s.markers) == 6  # the copies left it alone


def test_two_rows_sharing_a_marker_removing_one_breaks_the_other():
    """White ring E5 moves to F6; the marker left on E5 completes two rows.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . W .
     9       . . . . . . . .
     8     . . . . . . . . W
     7   . . . w . . . . . .
     6   . . . w . . . . .
     5 . . w w W w w . . .
     4 . . . . w . . . .
     3 . . . . w . . B
     2 . B . . . . .
     1   . . . B

    Destinations of E5: up over E6 E7 to E8; down over E4 E3 to E2; left over
    D5 C5 to B5; right over F5 G5 to H5; up-right F6 G7 H8 I9 (then the ring
    J10); down-left D4 C3 (then the ring B2).
    Rows: E3-E7 (direction 0) and C5-G5 (direction 1), sharing E5.
    """
    s = position(test_two_rows_sharing_a_marker_removing_one_breaks_the_other.__doc__, WHITE)
    s.apply(point("E5"))
    assert legal(s) == points("E8", "E2", "B5", "H5", "F6", "G7", "H8", "I9", "D4", "C3")
    s.apply(point("F6"))
    assert (s.kind, s.to_move) == ("remove_row", WHITE)
    assert legal(s) == {row_action("E3", 0), row_action("C5", 1)}
    for row, rest in ((row_action("C5", 1), {"E3", "E4", "E6", "E7"}),
                      (row_action("E3", 0), {"C5", "D5", "F5", "G5"})):
        t = s.copy()
        t.apply(row)
        assert {Y.name(p) for p in t.markers} == rest
        t.apply(point("J10"))
        assert t.rings_removed == (1, 0)
        assert (t.kind, t.to_move) == ("choose_ring", BLACK)  # the other row is broken


def test_two_separate_rows_are_removed_one_at_a_time_each_with_a_ring():
    """White ring B5 jumps C5 D5 (black, flipped white) and stops on E5.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . W .
     9       . . . . . . . .
     8     . . . . . . . . W
     7   . w w . . . . . . .
     6   . w w . . . . . .
     5 . W b b . . . . . .
     4 . . w w . . . . .
     3 . . w w . . . B
     2 . B . . . . .
     1   . . . B

    Rows after the move: C3-C7 and D3-D7 (direction 0); B5 C5 D5 are only three.
    """
    s = position(test_two_separate_rows_are_removed_one_at_a_time_each_with_a_ring.__doc__, WHITE)
    s.apply(point("B5"))
    assert point("E5") in legal(s) and point("F5") not in legal(s)
    s.apply(point("E5"))
    assert legal(s) == {row_action("C3", 0), row_action("D3", 0)}
    s.apply(row_action("C3", 0))
    assert (s.kind, s.to_move) == ("remove_ring", WHITE)
    s.apply(point("J10"))
    assert (s.kind, s.to_move, s.rings_removed) == ("remove_row", WHITE, (1, 0))
    assert legal(s) == {row_action("D3", 0)}
    s.apply(row_action("D3", 0))
    assert legal(s) == points("E5", "K8")
    s.apply(point("K8"))
    assert (s.kind, s.to_move, s.rings_removed) == ("choose_ring", BLACK, (2, 0))
    assert {Y.name(p): c for p, c in s.markers.items()} == {"B5": WHITE}
    assert s.pool == 51 - 10 - 1 + 10


def test_rows_for_both_players_mover_first_then_the_opponent_before_moving():
    """White ring E2 moves up over E3 (white, flipped black) and stops on E4.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . W .
     9       . . . B . . . .
     8     . . . . . . . . W
     7   . . . . . . . . . .
     6   . . . . . . . B .
     5 . . . . . . . . . .
     4 . . . . . . . B .
     3 b b b b w . . .
     2 w w w w W . .
     1   . . . .

    The marker left on E2 makes white's row A2-E2; the flip makes black's row
    A3-E3 (both direction 1).
    """
    s = position(both_rows_doc(), WHITE)
    s.apply(point("E2"))
    assert point("E4") in legal(s) and point("E5") not in legal(s)
    s.apply(point("E4"))
    assert (s.kind, s.to_move) == ("remove_row", WHITE)
    assert legal(s) == {row_action("A2", 1)}
    s.apply(row_action("A2", 1))
    assert legal(s) == points("E4", "J10", "K8")
    s.apply(point("J10"))
    assert (s.kind, s.to_move) == ("remove_row", BLACK)
    assert legal(s) == {row_action("A3", 1)}
    s.apply(row_action("A3", 1))
    assert (s.kind, s.to_move) == ("remove_ring", BLACK)
    assert legal(s) == points("H4", "I6", "G9")
    s.apply(point("G9"))
    assert (s.kind, s.to_move, s.rings_removed) == ("choose_ring", BLACK, (1, 1))
    assert s.markers == {} and s.pool == 51  # E2 and E3 went with the rows


def test_when_both_reach_three_the_mover_wins_first():
    s = position(both_rows_doc(), WHITE, rings_removed=(2, 2))
    move(s, "E2", "E4")
    s.apply(row_action("A2", 1))
    s.apply(point("K8"))
    assert s.terminal and s.kind == "over" and s.returns() == (1.0, -1.0)
    assert s.rings_removed == (3, 2)
    assert not s.legal_mask().any()
    with pytest.raises(ValueError, match="over"):
        s.apply(row_action("A3", 1))  # black's row stays unresolved


def test_a_move_that_makes_only_the_opponents_row_can_make_them_win():
    rings, markers = parse_diagram(both_rows_doc())
    del markers["A2"]  # white's B2-E2 is then four
    s = RefYinsh.from_position(rings, markers, WHITE, rings_removed=(2, 2))
    move(s, "E2", "E4")
    assert (s.kind, s.to_move) == ("remove_row", BLACK)
    s.apply(row_action("A3", 1))
    s.apply(point("H4"))
    assert s.terminal and s.returns() == (-1.0, 1.0) and s.rings_removed == (2, 3)


def test_blitz_one_ring_wins():
    """Blitz: white ring E5 moves up to E6; the marker on E5 makes C5-G5.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . . .
     9       . . . . . . . .
     8     . . . . . . . . .
     7   . . . . . . . . . .
     6   . . . . . . . . .
     5 . . w w W w w . . .
     4 . . . . . . . . .
     3 . . . . . . . B
     2 . . . . . . .
     1   . . . .
    """
    s = position(test_blitz_one_ring_wins.__doc__, WHITE, blitz=True)
    move(s, "E5", "E6")
    assert legal(s) == {row_action("C5", 1)}
    s.apply(row_action("C5", 1))
    assert legal(s) == points("E6")
    s.apply(point("E6"))
    assert s.terminal and s.returns() == (1.0, -1.0) and s.rings_removed == (1, 0)
    with pytest.raises(ValueError, match="expected 3..5"):  # blitz needs only one ring each
        position(test_blitz_one_ring_wins.__doc__, WHITE)


# ------------------------------------------------------------------ the end


def test_empty_pool_ends_the_game_when_the_next_player_is_about_to_move():
    """The last marker is put on B5; black is then to move with an empty pool.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . W .
     9       . . . . . . . .
     8     . . . . . . . . W
     7   . . . . . . . . . .
     6   . . . . . . . . .
     5 . W . . . . . . . .
     4 . . . . . . . . .
     3 . . . . . . . B
     2 . B . . . . .
     1   . . . B
    """
    doc = test_empty_pool_ends_the_game_when_the_next_player_is_about_to_move.__doc__
    for removed, result in (((1, 0), (1.0, -1.0)), ((0, 1), (-1.0, 1.0)), ((1, 1), (0.0, 0.0))):
        s = position(doc, WHITE, pool=1, rings_removed=removed)
        assert (s.kind, s.to_move, s.terminal) == ("choose_ring", WHITE, False)
        move(s, "B5", "C5")
        assert s.pool == 0 and s.terminal and s.kind == "over" and s.returns() == result
    s = position(doc, BLACK, pool=0)
    assert s.terminal and s.returns() == (0.0, 0.0)


def test_rows_resolved_after_the_last_marker_refill_the_pool_and_play_goes_on():
    doc = test_two_rows_sharing_a_marker_removing_one_breaks_the_other.__doc__
    s = position(doc, WHITE, pool=1)
    move(s, "E5", "F6")
    assert s.pool == 0 and (s.kind, s.terminal) == ("remove_row", False)
    s.apply(row_action("C5", 1))
    s.apply(point("K8"))
    assert s.pool == 5 and (s.kind, s.to_move, s.terminal) == ("choose_ring", BLACK, False)


def test_a_player_who_cannot_move_passes_and_passes_in_a_row_are_counted():
    """White's one ring A2 is walled in by black's rings A3, B2, B3.

       A B C D E F G H I J K
    11             . . . .
    10         . . . . . . .
     9       . . . . . . . .
     8     . . . . . . . . .
     7   . . . . . . . . . .
     6   . . . . . . . . .
     5 . . . . . . . . . .
     4 . . . . . . . . .
     3 B B . . . . . .
     2 W B . . . . .
     1   . . . .

    After black's A3-A4 white is still walled in (A3 is then a marker before the
    ring A4); after black's B2-B1 white can jump B2 to C2.
    """
    doc = test_a_player_who_cannot_move_passes_and_passes_in_a_row_are_counted.__doc__
    s = position(doc, WHITE, rings_removed=(2, 0))
    assert (s.kind, s.to_move) == ("choose_ring", WHITE) and legal(s) == {PASS}
    with pytest.raises(ValueError, match="not legal"):
        s.apply(point("A2"))
    s.apply(PASS)
    assert (s.kind, s.to_move, s.passes, s.pool) == ("choose_ring", BLACK, 1, 51)
    assert legal(s) == points("A3", "B2", "B3")
    move(s, "A3", "A4")
    assert legal(s) == {PASS}
    s.apply(PASS)  # black moved in between: not two in a row
    assert (s.terminal, s.to_move, s.passes) == (False, BLACK, 1)
    assert PASS not in legal(s)
    move(s, "B2", "B1")
    assert legal(s) == points("A2")
    s.apply(point("A2"))
    assert legal(s) == points("C2")


def test_two_passes_in_a_row_end_the_game_scored_by_rings_removed():
    """Nobody can move: every line from a ring meets a ring or runs over markers to the edge.

       A B C D E F G H I J K
    11             . . b b
    10         . . . b w w .
     9       . . . w w b . .
     8     . . . w b b . . .
     7   b . . b b w . . . .
     6   w . b w w . . . .
     5 b b w w b . . . . .
     4 w w b b . . . . .
     3 B b w w b b w w
     2 B W b b w w b
     1   b . . .

    White B2: up B3..B7, right C2..G2, up-right C3..J10, down B1 are markers to
    the edge; left A2 is a ring. Black A2: up A3 and right B2 are rings;
    up-right B3..J11 markers to the edge. Black A3: up A4 A5, right B3..H3,
    up-right B4..I11 markers to the edge; down A2 a ring. No five in a line.
    """
    doc = test_two_passes_in_a_row_end_the_game_scored_by_rings_removed.__doc__
    for first in (WHITE, BLACK):
        for removed, result in (((2, 1), (1.0, -1.0)), ((2, 2), (0.0, 0.0))):
            s = position(doc, first, rings_removed=removed)
            assert (s.kind, s.to_move, legal(s)) == ("choose_ring", first, {PASS})
            s.apply(PASS)
            assert (s.kind, s.to_move, s.terminal, legal(s)) == ("choose_ring", 1 - first, False, {PASS})
            s.apply(PASS)
            assert s.terminal and s.kind == "over" and s.returns() == result


# ------------------------------------------------------------------ boundary


def test_planes_from_the_deciders_side():
    """The position of test_a_ring_stops_after_the_first_run_and_never_passes_a_ring, black to decide."""
    s = position(test_a_ring_stops_after_the_first_run_and_never_passes_a_ring.__doc__, BLACK)

    def cells(*names):
        out = np.zeros((11, 11), dtype=np.int8)
        for nm in names:
            out[ij(nm)] = 1
        return out

    p = s.planes()
    assert p.shape == (6, 11, 11) and p.dtype == np.int8
    assert np.array_equal(p[0], cells("E4", "B6", "G11"))
    assert np.array_equal(p[1], cells("B4", "H4", "C2"))
    assert np.array_equal(p[2], cells("E6", "E9", "H7", "G4", "E3"))
    assert np.array_equal(p[3], cells("E5", "E7", "E8", "G6", "I8", "F4"))
    assert p[4].sum() == 85 and p[4][ij("A5")] == 1 and p[4][ij("A1")] == 0 and p[4][0, 10] == 0
    assert not p[5].any()
    s.apply(point("E4"))
    assert np.array_equal(s.planes()[5], cells("E4"))
    s.apply(point("E10"))  # now white decides: the sides swap
    q = s.planes()
    assert np.array_equal(q[0], cells("B4", "H4", "C2"))
    assert np.array_equal(q[1], cells("E10", "B6", "G11"))
    assert np.array_equal(q[3], cells("E3", "E4", "E5", "E7", "E8", "H7", "G4"))
    assert not q[5].any()


def test_bad_actions_and_bad_positions_raise_and_change_nothing():
    s = position(test_jumped_markers_flip_and_the_start_marker_does_not.__doc__, WHITE)
    before = snapshot(s)
    for bad in (-1, 485, 1.0, "D6", True, point("B2"), row_action("C4", 0), PASS):
        with pytest.raises(ValueError):
            s.apply(bad)
        assert snapshot(s) == before
    rings, markers = parse_diagram(test_jumped_markers_flip_and_the_start_marker_does_not.__doc__)
    cases = [
        (dict(rings, E5=WHITE), markers, {}, "two pieces"),
        (dict(rings, Z9=WHITE), markers, {}, "bad point name"),
        (dict(rings, A1=WHITE), markers, {}, "off the board"),
        (dict(rings, A2=2), markers, {}, "expected 0"),
        (rings, markers, dict(pool=47), "pool"),
        (rings, markers, dict(rings_removed=(3, 0)), "removed 3"),
        (dict(rings, A2=WHITE, A3=WHITE, A4=WHITE), markers, {}, "rings on the board"),
        (rings, {Y.name(p): p % 2 for p in Y.VALID_POINTS if Y.name(p) not in rings}, {}, "only 51"),
    ]
    for r, m, kw, msg in cases:
        with pytest.raises(ValueError, match=msg):
            RefYinsh.from_position(r, m, WHITE, **kw)


# ------------------------------------------------------------------ random play

LINE_STEPS = ((-1, 0), (0, 1), (-1, 1))  # row-action directions 0, 1, 2 in (i, j)


def fives(plane: np.ndarray) -> set[int]:
    """Every row action whose five cells are set in ``plane``, by the array formula."""
    padded = np.pad(plane.astype(bool), 4)
    out = set()
    for d, (di, dj) in enumerate(LINE_STEPS):
        all_five = np.ones((11, 11), dtype=bool)
        for k in range(5):
            all_five &= padded[4 + k * di : 15 + k * di, 4 + k * dj : 15 + k * dj]
        out |= {N + d * N + int(x) for x in np.flatnonzero(all_five)}
    return out


def on_a_line(a: int, b: int) -> bool:
    (ai, aj), (bi, bj) = divmod(a, 11), divmod(b, 11)
    di, dj = bi - ai, bj - aj
    return (di, dj) != (0, 0) and (di == 0 or dj == 0 or di == -dj)


def check_invariants(s: RefYinsh) -> None:
    """Everything that must hold in any position of a game played from the start."""
    assert len(s.markers) + s.pool == 51
    mask = s.legal_mask()
    acts = set(int(a) for a in np.flatnonzero(mask))
    p = s.planes()
    assert p.dtype == np.int8 and p.shape == (6, 11, 11)
    assert set(np.unique(p)) <= {0, 1}
    assert p[4].sum() == 85 and not (p[:4].sum(axis=0) > p[4]).any()  # pieces on valid points only
    assert p[:4].sum(axis=0).max() <= 1
    me = s.to_move
    sides = ((0, s.rings, me), (1, s.rings, 1 - me), (2, s.markers, me), (3, s.markers, 1 - me))
    for k, pieces, colour in sides:
        want = np.zeros(N, dtype=np.int8)
        want[[q for q, c in pieces.items() if c == colour]] = 1
        assert np.array_equal(p[k].ravel(), want)  # point = i * 11 + j
    assert p[5].sum() == (s.kind == "destination")
    if s.kind != "place":
        for c in (0, 1):
            assert sum(1 for v in s.rings.values() if v == c) + s.rings_removed[c] == 5
    mine = set(np.flatnonzero(p[0].ravel()).tolist())
    occupied = set(np.flatnonzero(p[:4].any(axis=0).ravel()).tolist())
    if s.terminal:
        assert s.kind == "over" and not acts
        return
    assert acts, "the mask is never empty before the end"
    if s.kind == "place":
        assert not s.markers and acts == set(Y.VALID_POINTS) - occupied
    elif s.kind == "choose_ring":
        assert s.pool > 0 and not fives(p[2]) and not fives(p[3])  # all rows resolved
        points_ = acts - {PASS}
        assert points_ <= mine and (PASS in acts) == (not points_)
    elif s.kind == "destination":
        chosen = int(np.flatnonzero(p[5].ravel())[0])
        assert chosen in mine and chosen == s.chosen
        assert all(a < N and a not in occupied and on_a_line(chosen, a) for a in acts)
    elif s.kind == "remove_row":
        assert acts == fives(p[2])
    elif s.kind == "remove_ring":
        assert acts == mine


def play_random(rng: np.random.Generator, blitz: bool, stats: dict, full: bool = True) -> RefYinsh:
    """One random game, checked at every decision (all invariants, or the cheap ones)."""
    s = RefYinsh(blitz=blitz)
    steps = 0
    while True:
        if full:
            check_invariants(s)
        else:
            assert len(s.markers) + s.pool == 51 and s.legal_mask().any() != s.terminal
        stats.setdefault("kinds", set()).add(s.kind)
        if s.terminal:
            break
        acts = np.flatnonzero(s.legal_mask())
        if steps % 17 == 0:  # an illegal action changes nothing; a copy is independent
            before = snapshot(s)
            illegal = np.flatnonzero(~s.legal_mask())
            with pytest.raises(ValueError):
                s.apply(int(rng.choice(illegal)))
            t = s.copy()
            t.apply(int(rng.choice(acts)))
            assert snapshot(s) == before
        s.apply(int(rng.choice(acts)))
        steps += 1
    w, b = s.rings_removed
    target = 1 if blitz else 3
    if max(w, b) >= target:
        reason = "rings"
        assert s.returns() == ((1.0, -1.0) if w > b else (-1.0, 1.0))
    else:
        reason = "pool" if s.pool == 0 else "passes"
        assert reason == "pool" or s.passes == 2
        assert s.returns() == ((1.0, -1.0) if w > b else (-1.0, 1.0) if b > w else (0.0, 0.0))
    stats.setdefault("endings", []).append(reason)
    return s


@pytest.mark.parametrize("blitz", [False, True], ids=["normal", "blitz"])
def test_random_games_keep_the_invariants(blitz):
    rng = np.random.default_rng(11 + blitz)
    stats: dict = {}
    for game in range(150):
        play_random(rng, blitz, stats, full=game % 3 == 0)  # every check on a third, for time
    assert stats["kinds"] == set(Y.KINDS)
    assert "rings" in stats["endings"]
