"""YINSH rules through the public API of YinshState: scripted positions for every rule."""

import numpy as np
import pytest

from odd_env import hexhex

from odd_env.common.geometry import yinsh_board
from odd_env.games.yinsh.state import DECISIONS, NUM_ACTIONS, NUM_PLANES, NUM_POINTS, PASS_ACTION, YinshState, parse_point, point_name, row_action

N = 121
P = parse_point


def names(points) -> set[str]:
    return {point_name(int(x)) for x in points}


def legal_points(state: YinshState) -> set[str]:
    mask = state.legal_action_mask()
    assert not mask[N:].any(), "a point decision offers non-point actions"
    return names(np.flatnonzero(mask[:N]))


def legal_rows(state: YinshState) -> set[str]:
    mask = state.legal_action_mask()
    assert not mask[:N].any() and not mask[PASS_ACTION]
    return {state.action_to_string(a) for a in np.flatnonzero(mask)}


def play(state: YinshState, *texts: str) -> YinshState:
    """Play decisions named as action_to_string names them."""
    for text in texts:
        state.apply(state.parse_action(text))
    return state


def move(state: YinshState, start: str, end: str) -> YinshState:
    assert state.decision_name == "move"
    return play(state, start, f"{start}-{end}")


# ---------------------------------------------------------------- board
def test_board_is_yodd_base_6_without_its_corners():
    g, h = yinsh_board(), hexhex(6)
    assert g.num_onboard == 85 and g.num_cells == 121 and g.game == "yinsh"
    corners = np.flatnonzero(h.onboard & ~g.onboard)
    assert len(corners) == 6 and not (g.onboard & ~h.onboard).any()
    assert all((h.neighbours[c] >= 0).sum() == 3 for c in corners)  # the hexhex corners
    # Within the YINSH points the neighbours are Yodd's, minus the corners.
    for x in np.flatnonzero(g.onboard):
        assert set(g.neighbours[x][g.neighbours[x] >= 0]) == set(h.neighbours[x][h.neighbours[x] >= 0]) - set(corners)


def test_point_names_follow_the_column_table():
    table = {"A": (2, 5), "B": (1, 7), "C": (1, 8), "D": (1, 9), "E": (1, 10), "F": (2, 10),
             "G": (2, 11), "H": (3, 11), "I": (4, 11), "J": (5, 11), "K": (7, 10)}
    expected = {f"{c}{r}" for c, (lo, hi) in table.items() for r in range(lo, hi + 1)}
    g = yinsh_board()
    assert {g.label(x) for x in np.flatnonzero(g.onboard)} == expected
    assert P("E5") == (11 - 5) * 11 + 4 == P("e5")
    assert names(y for y in g.neighbours[P("E5")] if y >= 0) == {"E4", "E6", "D5", "F5", "D4", "F6"}
    longest = max(int((g.rays[x, d] >= 0).sum()) + 1 for x in np.flatnonzero(g.onboard) for d in range(6))
    assert longest == 10
    with pytest.raises(ValueError, match="not a point"):
        P("A1")
    with pytest.raises(ValueError, match="not a point"):
        point_name(0)


def test_action_numbers_of_the_rules_page():
    """docs/rules/yinsh.md section 4: point indices, row actions, the 123 rows of five."""
    assert [P(x) for x in ("E5", "E4", "A2", "G11", "K10")] == [70, 81, 99, 6, 21]
    rows = {("F3", "F7"): 214, ("F4", "F8"): 203, ("E5", "E9"): 191, ("C7", "G7"): 288,
            ("A5", "E5"): 308, ("B6", "F6"): 298}
    assert {ends: row_action(*ends) for ends in rows} == rows
    s = YinshState()

    def fits(a: int) -> bool:
        try:
            return bool(s.action_to_string(a))
        except ValueError:
            return False

    assert sum(fits(a) for a in range(N, 4 * N)) == 123


# ---------------------------------------------------------------- placement
def test_placement_alternates_from_white_and_then_white_moves():
    s = YinshState()
    assert (s.to_move, s.decision_name, s.pool, s.rings_removed) == (0, "place", 51, (0, 0))
    assert legal_points(s) == names(np.flatnonzero(yinsh_board().onboard))
    order = ["E5", "F6", "A2", "K10", "B1", "J11", "G2", "C8", "E1", "H11"]
    for i, p in enumerate(order):
        assert s.to_move == i % 2 and s.decision_name == "place"
        play(s, p)
    assert names(s.rings(0)) == set(order[0::2]) and names(s.rings(1)) == set(order[1::2])
    assert (s.to_move, s.decision_name, s.rings_placed) == (0, "move", 10)
    with pytest.raises(ValueError, match="occupied"):
        YinshState().apply(P("E5")).apply(P("E5"))


# ---------------------------------------------------------------- moves
def seed_position() -> YinshState:
    """The seed's example (A): black to move the ring on E4 among markers and rings."""
    return YinshState.from_position(
        rings={"black": ["E4", "B6", "C8", "J6", "F10"], "white": ["A4", "C2", "G2", "H10", "K8"]},
        markers={"white": ["E5", "E7", "E9", "F5", "H7", "E3"], "black": ["E6", "E8", "G6", "I8"]},
        to_move="black",
    )


def test_seed_example_destinations():
    s = seed_position()
    assert s.decision_name == "move"
    assert names(s.destinations("E4")) == {
        "E10",  # over the markers E5-E9, then the first empty point
        "E2",  # over E3; E1 is beyond the first empty point after the run
        "J9",  # over F5-I8; K10 is beyond J9
        "F4", "G4", "H4", "I4",  # empty points to the edge
        "D4", "C4", "B4",  # A4 holds a ring
        "D3",  # C2 holds a ring
    }
    play(s, "E4")
    assert s.decision_name == "destination" and s.chosen_ring == P("E4")
    assert legal_points(s) == names(s.destinations("E4"))
    assert s.observation()[5].reshape(-1)[P("E4")] == 1 and s.observation()[5].sum() == 1
    for target, reason in [("K10", "must stop on J9"), ("E1", "must stop on E2"), ("C2", "holds a white ring"),
                           ("B1", "white ring on C2 blocks"), ("E5", "cannot stop on E5"), ("F7", "not on a line")]:
        with pytest.raises(ValueError, match=reason):
            s.apply(P(target))
    # one jumped marker is named alone, a run by its ends
    assert s.why_illegal(P("E1")) == ("the ring on E4 jumps the marker E3 and must stop on E2, "
                                      "the first empty point after it")
    assert s.why_illegal(P("K10")) == ("the ring on E4 jumps the markers F5-I8 and must stop on J9, "
                                       "the first empty point after them")


def test_a_move_flips_the_jumped_markers_and_leaves_one():
    s = seed_position()
    before = s.copy()
    move(s, "E4", "E10")
    # A black marker on E4; E5-E9 flipped; nothing else changed.
    assert s.piece_at("E4") == "black marker" and s.piece_at("E10") == "black ring"
    assert [s.piece_at(f"E{r}") for r in range(5, 10)] == [
        "black marker", "white marker", "black marker", "white marker", "black marker"]
    assert s.piece_at("E3") == "white marker" and s.piece_at("F5") == "white marker"
    assert s.pool == before.pool - 1 and s.last_move == (P("E4"), P("E10"))
    assert (s.to_move, s.decision_name, s.moves_played) == (0, "move", 1)


def test_a_ring_cannot_move_when_every_direction_is_blocked():
    s = YinshState.from_position(
        rings={"white": ["A2", "B2", "C2", "D2", "E2"], "black": ["A3", "B3", "C1", "F6", "K8"]},
        markers={"black": ["B1"]},
    )
    # A2: A3 and B3 are rings, B2 a ring: no direction is free.
    assert "A2" not in legal_points(s)
    with pytest.raises(ValueError, match="cannot move"):
        s.apply(P("A2"))
    with pytest.raises(ValueError, match="no white ring"):
        s.apply(P("A3"))
    with pytest.raises(ValueError, match="pass is legal only"):
        s.apply(PASS_ACTION)


# ---------------------------------------------------------------- rows
def test_a_line_of_six_offers_two_rows():
    s = YinshState.from_position(
        rings={"white": ["F5", "A4", "B7", "K8", "J11"], "black": ["C1", "D1", "H3", "I4", "K10"]},
        markers={"white": ["F2", "F3", "F4", "F6", "F7"]},
    )
    move(s, "F5", "G5")  # leaves a white marker on F5: F2-F7 are six white markers
    assert (s.to_move, s.decision_name) == (0, "remove_row")
    assert legal_rows(s) == {"xF2-F6", "xF3-F7"}
    for row, left in (("xF2-F6", "F7"), ("xF3-F7", "F2")):
        t = s.copy()
        play(t, row)
        assert t.decision_name == "remove_ring" and t.pool == s.pool + 5
        assert names(t.markers("white")) == {left}
        assert legal_points(t) == names(t.rings("white"))
        play(t, "A4")
        assert t.rings_removed == (1, 0) and (t.to_move, t.decision_name) == (1, "move")


def test_rows_sharing_a_marker_one_is_removed_and_the_other_broken():
    s = YinshState.from_position(
        rings={"white": ["F4", "A4", "B7", "K8", "J11"], "black": ["C1", "D1", "H3", "I8", "K10"]},
        markers={"white": ["F2", "F3", "F5", "F6", "B4", "C4", "D4", "E4"]},
    )
    move(s, "F4", "G5")  # F4 completes the column F2-F6 and the row B4-F4
    assert legal_rows(s) == {"xF2-F6", "xB4-F4"}
    play(s, "B4-F4", "J11")
    # F4 went with the row: F2, F3, F5, F6 are no longer five in a row.
    assert (s.to_move, s.decision_name, s.rings_removed) == (1, "move", (1, 0))
    assert names(s.markers("white")) == {"F2", "F3", "F5", "F6"}


def both_rows_position(removed=(0, 0), blitz=False) -> YinshState:
    """White's move E2-E4 flips E3, completing a black row A3-E3, and leaves a white row A2-E2."""
    w, b = 5 - removed[0], 5 - removed[1]
    return YinshState.from_position(
        rings={"white": ["E2", "K8", "J11", "I11", "H11"][:w], "black": ["G2", "B7", "C8", "D9", "K10"][:b]},
        markers={"white": ["E3", "A2", "B2", "C2", "D2"], "black": ["A3", "B3", "C3", "D3"]},
        removed=removed, blitz=blitz,
    )


def test_rows_for_both_players_mover_first_then_the_opponent_before_moving():
    s = both_rows_position()
    move(s, "E2", "E4")
    assert names(s.markers("black")) == {"A3", "B3", "C3", "D3", "E3"}
    assert (s.to_move, s.decision_name, s.resolving_opponent_rows) == (0, "remove_row", False)
    assert legal_rows(s) == {"xA2-E2"}
    play(s, "A2-E2")
    assert (s.to_move, s.decision_name) == (0, "remove_ring")
    play(s, "K8")
    # Now black removes the row white's move made, then black moves.
    assert (s.to_move, s.decision_name, s.resolving_opponent_rows) == (1, "remove_row", True)
    assert s.observation()[20].all() and not s.observation(0)[23].any()
    assert legal_rows(s) == {"xA3-E3"}
    play(s, "E3-A3")  # either end names the row
    assert (s.to_move, s.decision_name) == (1, "remove_ring")
    play(s, "G2")
    assert (s.to_move, s.decision_name, s.resolving_opponent_rows) == (1, "move", False)
    assert s.rings_removed == (1, 1) and s.pool == 51 - 9 - 1 + 10


def test_the_mover_wins_first_when_both_reach_three():
    s = both_rows_position(removed=(2, 2))
    move(s, "E2", "E4")
    play(s, "A2-E2", "K8")
    assert s.is_terminal and s.winner == 0 and s.returns() == (1.0, -1.0)
    assert s.rings_removed == (3, 2) and s.legal_action_mask().sum() == 0
    assert s.why_illegal(0) == "the game is over"


def test_blitz_one_ring_wins():
    s = both_rows_position(blitz=True)
    assert s.blitz and s.rings_to_win == 1 and s.observation()[22].all()
    move(s, "E2", "E4")
    play(s, "A2-E2")
    assert not s.is_terminal
    play(s, "E4")
    assert s.is_terminal and s.winner == 0 and s.returns() == (1.0, -1.0)


# ---------------------------------------------------------------- game ends
def colour_of(point: int) -> str:
    """Marker colours without three in a line: (i + 2j) mod 4 in two runs of two."""
    i, j = divmod(point, 11)
    return "white" if (i + 2 * j) % 4 < 2 else "black"


def filled_position(white, black, removed, n_markers, to_move="white") -> YinshState:
    """Rings as given, the last ``n_markers`` other points (array order) with patterned markers."""
    rings = {P(x) for x in white + black}
    others = [x for x in np.flatnonzero(yinsh_board().onboard) if x not in rings][::-1][:n_markers]
    markers = {"white": [int(x) for x in others if colour_of(x) == "white"],
               "black": [int(x) for x in others if colour_of(x) == "black"]}
    return YinshState.from_position(rings={"white": white, "black": black}, markers=markers,
                                    removed=removed, to_move=to_move)


@pytest.mark.parametrize("removed, winner", [((1, 0), 0), ((1, 1), None), ((0, 2), 1)])
def test_the_last_marker_ends_the_game_on_rings_removed(removed, winner):
    white = ["E10", "F10", "G11", "H11", "G10"][: 5 - removed[0]]
    black = ["B7", "C8", "D9", "J11", "K10"][: 5 - removed[1]]
    s = filled_position(white, black, removed, n_markers=50)
    assert s.pool == 1 and s.decision_name == "move" and not s.is_terminal
    move(s, "E10", "E9")  # a step to an empty neighbour: nothing jumped
    assert s.pool == 0 and s.is_terminal
    assert s.winner == winner and s.is_draw == (winner is None)
    expected = {0: (1.0, -1.0), 1: (-1.0, 1.0), None: (0.0, 0.0)}[winner]
    assert s.returns() == expected


def test_an_empty_pool_at_a_move_decision_is_already_over():
    s = filled_position(["E10", "F10", "G11", "H11"], ["B7", "C8", "D9", "J11", "K10"], (1, 0), n_markers=51)
    assert s.is_terminal and s.winner == 0 and s.pool == 0


def blocked_position(white, black, removed, free=(), to_move="white", passed=False) -> YinshState:
    """Every ray from every ring filled with patterned markers up to a ring or the edge,
    except the points in ``free``: no ring can move unless next to a free point."""
    g = yinsh_board()
    rings = {P(x) for x in white + black}
    fill = set()
    for x in rings:
        for ray in g.rays[x]:
            for y in ray:
                if y < 0 or y in rings:
                    break
                fill.add(int(y))
    fill -= {P(x) for x in free}
    markers = {"white": [x for x in fill if colour_of(x) == "white"],
               "black": [x for x in fill if colour_of(x) == "black"]}
    return YinshState.from_position(rings={"white": white, "black": black}, markers=markers,
                                    removed=removed, to_move=to_move, passed=passed)


def test_a_player_whose_rings_cannot_move_must_pass():
    s = blocked_position(["A3", "H11", "I4"], ["A4", "H3", "I11"], (2, 2), free=["A2"])
    assert s.decision_name == "move" and legal_points(s) == {"A3"}
    move(s, "A3", "A2")
    assert (s.to_move, s.decision_name) == (1, "pass")
    assert s.legal_actions().tolist() == [PASS_ACTION]
    with pytest.raises(ValueError, match="only legal action is pass"):
        s.apply(P("A4"))
    s.apply(PASS_ACTION)
    assert (s.to_move, s.decision_name, s.consecutive_passes) == (0, "move", 1)
    assert s.observation()[21].all()
    play(s, "A2")
    assert s.consecutive_passes == 0


@pytest.mark.parametrize("white, black, removed, winner", [
    (["A3", "H11", "I4"], ["A4", "H3", "I11"], (2, 2), None),
    (["A4", "B5", "C6"], ["A5", "B4", "B6", "C5"], (2, 1), 0),
])
def test_two_passes_in_a_row_end_the_game(white, black, removed, winner):
    s = blocked_position(white, black, removed)
    assert (s.to_move, s.decision_name) == (0, "pass") and s.pool > 0
    s.apply(PASS_ACTION)
    assert (s.to_move, s.decision_name) == (1, "pass") and not s.is_terminal
    s.apply(PASS_ACTION)
    assert s.is_terminal and s.winner == winner
    assert s.returns() == {None: (0.0, 0.0), 0: (1.0, -1.0)}[winner]


# ---------------------------------------------------------------- the state as a value
def test_copy_child_key_and_equality():
    s = seed_position()
    c = s.copy()
    assert c == s and c.key() == s.key() and c.data is not s.data
    child = s.child(P("E4"))
    assert s.decision_name == "move" and child.decision_name == "destination" and child != s
    t = YinshState.from_observation(child.observation())
    assert t.key() == child.key()
    assert "black to destination" in repr(child) and "pool 41" in repr(child)


def test_actions_accept_numpy_integers_and_reject_other_types():
    s = YinshState()
    s.apply(np.int64(P("E5")))
    s.apply(np.array(P("F6")))  # a 0-d integer array
    assert names(s.rings("white")) == {"E5"} and names(s.rings("black")) == {"F6"}
    before = s.copy()
    for bad, match in [(1.0 * P("A2"), "integer"), ("60", "integer"), (None, "integer"), (True, "integer"),
                       (np.array([60]), "integer"), (-1, "out of range"), (NUM_ACTIONS, "out of range"),
                       (0, "off the board"), (N + 3, "must place a ring"), (PASS_ACTION, "pass is legal only")]:
        with pytest.raises(ValueError, match=match):
            s.apply(bad)
    assert s == before


def test_row_actions_explain_themselves():
    s = both_rows_position()
    move(s, "E2", "E4")
    with pytest.raises(ValueError, match="must remove a row"):
        s.apply(P("A2"))
    with pytest.raises(ValueError, match=r"B2-F2 is not five white markers: F2 \(empty point\)"):
        s.apply(row_action("B2", "F2"))
    with pytest.raises(ValueError, match="does not fit"):
        s.apply(N + P("K10"))  # from K10 along the column: off the board at once
    with pytest.raises(ValueError, match="'E5-E6' names a ring move or a row, but the decision now is 'place'"):
        YinshState().parse_action("E5-E6")  # once: "E5 and E6 are not the ends of a row of five points"


def test_from_position_rejects_impossible_positions():
    base = {"white": ["E2", "K8", "J11", "I11", "H11"], "black": ["G2", "B7", "C8", "D9", "K10"]}
    cases = [
        (dict(rings=base, markers={"white": ["A2", "B2", "C2", "D2", "F2"], "black": ["A3", "B3", "C3", "D3", "E3"]},
              to_move="white", decision="move"), "row of five"),
        (dict(rings={"white": ["E2"], "black": ["G2", "B7"]}), "turn to place"),
        (dict(rings=base, removed=(1, 0)), "more than 5"),
        (dict(rings=base, removed=(3, 0)), "0 to 2"),
        (dict(rings={"white": ["E2"], "black": ["E2"]}), "given twice"),
        (dict(rings={"white": ["Z9"]}), "not a point"),
        (dict(rings=base, decision="pass"), "may not pass"),
        (dict(rings=base, chosen="G2"), "one of white's rings"),
        (dict(rings=base, decision="remove_row"), "no row of five"),
        (dict(rings=base, decision="bogus"), "decision must be"),
        (dict(rings=base, to_move="red"), "to_move must be"),
        (dict(rings=base, opponent_rows=True), "opponent_rows"),
        (dict(rings=base, opponent_rows="yes"), "opponent_rows must be True or False, got 'yes'"),
        (dict(rings=base, removed=(2**31, 0)), "removed must be a pair .* 0 to 5"),
        (dict(rings={"white": None}), r"rings\['white'\] must be a list of points, got None"),
    ]
    for kwargs, match in cases:
        with pytest.raises(ValueError, match=match):
            YinshState.from_position(**kwargs)


def test_from_observation_round_trip_over_random_games():
    rng = np.random.default_rng(0)
    seen = set()
    for game in range(12):
        s = YinshState(blitz=game % 3 == 0)
        while not s.is_terminal:
            planes = s.observation()
            assert planes.shape == (NUM_PLANES, 11, 11) and planes.dtype == np.int8
            t = YinshState.from_observation(planes, blitz=s.blitz)
            assert t.key() == s.key()
            np.testing.assert_array_equal(t.legal_action_mask(), s.legal_action_mask())
            np.testing.assert_array_equal(t.observation(), planes)
            seen.add(s.decision_name)
            s.apply(int(rng.choice(s.legal_actions())))
    assert {"place", "move", "destination", "remove_row", "remove_ring"} <= seen
    # A pending pass and the opponent-rows flag survive the round trip too.
    for s in (blocked_position(["A3", "H11", "I4"], ["A4", "H3", "I11"], (2, 2), passed=True),):
        assert YinshState.from_observation(s.observation()).key() == s.key()


def test_from_observation_validates_the_planes():
    s = seed_position()
    good = s.observation()
    assert YinshState.from_observation(good) == YinshState.from_observation(good.copy())

    def broken(edit):
        planes = good.copy()
        edit(planes)
        return planes

    cases = [
        (good[:5], "shape"),
        (good.astype(float), "integers"),
        (broken(lambda p: p.__setitem__((4, 0, 0), 1)), "plane 4"),
        (broken(lambda p: p.__setitem__((7, 3, 3), 0)), "constant"),
        (broken(lambda p: p.__setitem__(6, 1)), "exactly one decision"),
        (broken(lambda p: p.__setitem__(23, 0)), "not the planes of the player who decides"),
        (broken(lambda p: p.__setitem__((2, 6, 4), 1)), "overlap"),
        (broken(lambda p: p.__setitem__((18, 0, 6), 0)), "plane 18"),
        (broken(lambda p: p.__setitem__(13, 1)), "thermometer"),
        (broken(lambda p: p.__setitem__((0, 10, 1), 2)), "only 0 and 1"),
        (broken(lambda p: p.__setitem__(5, 0) or p.__setitem__((5, 5, 5), 1)), "chosen"),
        (s.observation(viewer=0), "not the planes of the player who decides"),
    ]
    for planes, match in cases:
        with pytest.raises(ValueError, match=match):
            YinshState.from_observation(planes)
    with pytest.raises(ValueError, match="blitz"):
        YinshState.from_observation(good, blitz=True)


def test_decision_names_and_action_strings():
    assert DECISIONS == ("place", "move", "destination", "remove_row", "remove_ring", "pass")
    s = seed_position()
    assert s.action_to_string(P("E4")) == "E4" and s.parse_action("e4") == P("E4")
    play(s, "E4")
    assert s.action_to_string(P("E10")) == "E4-E10" and s.parse_action("E10") == P("E10")
    assert s.action_to_string(row_action("E5", "E9")) == "xE5-E9"
    assert s.action_to_string(PASS_ACTION) == "pass" and s.parse_action("pass") == PASS_ACTION
    with pytest.raises(ValueError, match="chosen ring is on E4"):
        s.parse_action("E5-E10")


def test_observation_arguments_are_checked_like_xodds():
    s = YinshState()
    for viewer in (2, -1, 1.5, "black", True):
        with pytest.raises(ValueError, match="viewer must be 0 \\(white\\), 1 \\(black\\) or None"):
            s.observation(viewer)
    strided = np.zeros((24, 11, 22), np.int8)[:, :, ::2]  # reshape would fill a copy, leaving it untouched
    for out in (strided, np.zeros((24, 11, 11)), np.zeros((24, 11, 10), np.int8), "planes"):
        with pytest.raises(ValueError, match="out must be a C-contiguous, writeable int8\\[24, 11, 11\\] array"):
            s.observation(out=out)
    out = np.zeros((24, 11, 11), np.int8)
    assert s.observation(np.int64(1), out=out) is out and np.array_equal(out, s.observation(1))
    with pytest.raises(ValueError, match="blitz must be True, False or None, got 'no'"):
        YinshState(blitz="no")


def test_state_data_from_outside_is_checked_before_compiled_code_sees_it():
    junk = YinshState().data.copy()
    junk[:] = 99  # once a segmentation fault in observation()
    with pytest.raises(ValueError, match="not a YINSH position play can reach"):
        YinshState(data=junk)
    kind = YinshState().data.copy()
    kind[NUM_POINTS + 1] = 77  # the decision kind
    with pytest.raises(ValueError, match="the decision kind must be 0..5, got 77"):
        YinshState(data=kind)
    frozen = YinshState().data.copy()
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="C-contiguous, writeable"):
        YinshState(data=frozen)
    state, rng = YinshState(blitz=True), np.random.default_rng(0)
    while not state.is_terminal:  # a finished game's data is taken back too
        state.apply(int(rng.choice(state.legal_actions())))
    again = YinshState(data=state.data.copy())
    assert again.is_terminal and again.winner == state.winner and again == state
    n = NUM_POINTS
    from odd_env.games.yinsh import kernels as YK

    def edited(data, **fields):
        data = data.copy()
        for name, value in fields.items():
            data[n + getattr(YK, name)] = value
        return data

    over = edited(YinshState().data, M_DONE=1, M_WINNER=0, M_KIND=YK.KIND_NONE)
    for fields, message in [
        (dict(M_POOL=10**8), "the pool holds 100000000 markers"),  # once a segmentation fault in observation()
        (dict(M_POOL=86), "the pool holds 86 markers"),  # once read past the end of the point table
        (dict(M_KIND=0), "a finished game has decision kind -1"),
        (dict(M_CHOSEN=5), "no chosen ring"),
        (dict(M_OPP_ROWS=86), "opponent-rows flag 0 or 1"),
        (dict(M_REMOVED=4), "removed must be 0 to 3"),
        (dict(M_LAST_TO=3), "two different points of the board"),
        (dict(M_MOVES=1), r"ring moves played \(1\) must be 0 to the decisions played \(0\)"),
    ]:
        with pytest.raises(ValueError, match=message):
            YinshState(data=edited(over, **fields))
    with pytest.raises(ValueError, match="two different points of the board"):
        YinshState(data=edited(YinshState().data, M_LAST_FROM=0, M_LAST_TO=3))  # a running game too
    with pytest.raises(ValueError, match="no ring move has been played"):
        YinshState(data=edited(YinshState().data, M_LAST_FROM=P("E5"), M_LAST_TO=P("E6")))
    from odd_env import GameState

    with pytest.raises(ValueError, match="YINSH positions are odd_env.games.yinsh.state.YinshState"):
        GameState(yinsh_board())  # once played Xodd/Yodd rules on the YINSH board


def test_flags_are_booleans_not_truthy_values():
    for call, message in [(lambda: YinshState.from_position(blitz="no"), "blitz must be True or False, got 'no'"),
                          (lambda: YinshState.from_position(passed="no"), "passed must be True or False"),
                          (lambda: YinshState.from_observation(YinshState().observation(), blitz=0),
                           "blitz must be True, False or None, got 0")]:
        with pytest.raises(ValueError, match=message):
            call()
