"""The rules through GameState: scripted positions, the seeds' tactical facts,
random-play invariants, and the fast mask against a brute-force one."""

import numpy as np
import pytest
import reference as R

from odd_env import GameState, hexhex, square
from odd_env.games.odd.notation import cell_name, parse_cell
from odd_env.games.odd.positions import from_ascii, to_ascii


def stone(state: GameState, name: str, colour: str) -> int:
    """The relative action putting a ``colour`` stone on cell ``name`` for the player to act."""
    g = state.geometry
    cell = parse_cell(g, name)
    own = ("black", "white")[state.to_move]
    return cell if colour == own else g.num_cells + cell


def end(state: GameState) -> int:
    return 2 * state.geometry.num_cells


def complete_turns(state: GameState):
    """Every legal complete turn from ``state`` (start of a turn): (actions, resulting state)."""
    out = []
    for a in state.legal_actions():
        s1 = state.child(int(a))
        if s1.to_move != state.to_move or s1.is_terminal:
            out.append(((int(a),), s1))
            continue
        for b in s1.legal_actions():
            out.append(((int(a), int(b)), s1.child(int(b))))
    return out


# --------------------------------------------------------------- turn structure


def test_black_first_turn_one_stone_either_colour_no_pass():
    for g in (square(9), hexhex(6)):
        s = GameState(g)
        mask = s.legal_action_mask()
        n = g.num_cells
        assert s.first_turn and s.to_move == 0 and s.turn_step == 1
        assert not mask[2 * n]
        assert np.array_equal(mask[:n], g.onboard) and np.array_equal(mask[n : 2 * n], g.onboard)
        with pytest.raises(ValueError, match="first turn"):
            s.apply(2 * n)
        s.apply(n + int(np.flatnonzero(g.onboard)[0]))  # a white stone ends Black's turn
        assert s.to_move == 1 and s.turn_step == 1 and s.group_counts == (0, 1)


def test_zero_groups_wins():
    s = GameState(square(5))
    s.apply(stone(s, "c3", "white"))  # Black's one stone is white: black 0 groups
    s.apply(end(s))  # White passes
    assert not s.is_terminal
    s.apply(end(s))  # Black passes: two passes in succession
    assert s.is_terminal and s.winner == 0 and s.group_counts == (0, 1)
    assert s.returns() == (1.0, -1.0)
    assert s.legal_action_mask().sum() == 0
    with pytest.raises(ValueError, match="game is over"):
        s.apply(end(s))


def test_two_passes_end_the_game_and_a_stone_resets_the_count():
    s = GameState(square(5))
    s.apply(stone(s, "a1", "black"))
    s.apply(end(s))  # white passes
    s.apply(stone(s, "e5", "black"))  # keeps parity? black k=0: flips, needs a second stone
    assert s.turn_step == 2 and not s.legal_action_mask()[end(s)]
    s.apply(stone(s, "c3", "white"))  # flips back: 3 groups
    assert s.to_move == 1 and s.consecutive_passes == 0
    s.apply(end(s))
    assert not s.is_terminal
    s.apply(end(s))
    assert s.is_terminal and s.group_counts == (2, 1) and s.winner == 1


def test_full_board_only_pass():
    s = from_ascii("xodd", """
        X O X
        O O O
        X O X
    """, to_move="white")
    mask = s.legal_action_mask()
    assert s.total_groups == 5
    assert np.flatnonzero(mask).tolist() == [end(s)]


def test_turn_that_cannot_be_completed_is_not_offered():
    # Black at a3 touches no black group: it flips parity. The only other empty
    # cell, b2, then keeps parity for both colours (k = 1 black, k = 3 white),
    # so the turn could not be finished: the look-ahead masks it. White at a3
    # merges two white groups (k = 2, flips too), after which white at b2
    # touches two white groups and flips back: that turn is offered.
    s = from_ascii("xodd", """
        . O X
        O . X
        X O X
    """, to_move="black")
    g = s.geometry
    n = g.num_cells
    mask = s.legal_action_mask()
    a3 = parse_cell(g, "a3")
    assert s.adjacent_groups(a3, 0) == 0 and s.adjacent_groups(a3, 1) == 2
    assert not mask[a3] and mask[n + a3]
    assert "no parity-flipping second stone" in s.why_illegal(a3)
    # every offered first stone can be completed to a turn with an odd total
    for a in np.flatnonzero(mask[: 2 * n]):
        s1 = s.child(int(a))
        assert s1.legal_action_mask().sum() > 0
    for _, result in complete_turns(s):
        assert result.total_groups % 2 == 1


def test_step_two_rules():
    s = GameState(square(5))
    s.apply(stone(s, "a1", "black"))
    # White: a keeping stone leaves end turn legal and allows only keeping second stones.
    s.apply(stone(s, "a2", "black"))  # merges with a1 (k=1): keeps parity
    assert s.turn_step == 2 and s.first_stone == parse_cell(s.geometry, "a2")
    mask = s.legal_action_mask()
    assert mask[end(s)]
    n = s.geometry.num_cells
    keep = s.parity_keeping()
    own, opp = 1, 0  # white to act: own colour white (index 1)
    assert np.array_equal(mask[:n], keep[own]) and np.array_equal(mask[n : 2 * n], keep[opp])
    with pytest.raises(ValueError, match="even number of groups"):
        s.apply(stone(s, "e5", "white"))  # k=0 flips: total would be even
    before = s.data.copy()
    with pytest.raises(ValueError):
        s.apply(parse_cell(s.geometry, "a1"))  # occupied
    assert np.array_equal(before, s.data)


# --------------------------------------------------------- the seeds' tactics


TWO_GAP = {
    "xodd": ("""
        . . . . . .
        . . . . . .
        . X . . X .
        . . . . . .
        . . . . . O
        . . . . . .
    """, "b4", "e4"),
    "yodd": ("""
           . . . .
          . . . . .
         . . . . . .
        . X . . X . .
         . . . . . .
          . . . . O
           . . . .
    """, "b4", "e4"),
}


@pytest.mark.parametrize("game", ["xodd", "yodd"])
def test_two_groups_two_gaps_apart_cannot_merge_in_one_turn(game):
    drawing, a, b = TWO_GAP[game]
    s = from_ascii(game, drawing, to_move="black")
    g = s.geometry
    ca, cb = parse_cell(g, a), parse_cell(g, b)
    turns = complete_turns(s)
    assert len(turns) > 100
    for _, result in turns:
        assert result.group_of(ca) != result.group_of(cb)
    # The two stones that would merge them are each placeable, but not together.
    gap = [x for x in range(g.num_cells) if x in g.neighbours[ca] and s.board[x] == 0]
    assert gap


def _xodd_diagonal(white: list[str]) -> GameState:
    rows = [["."] * 6 for _ in range(6)]
    g = square(6)
    for name in ["b5", "c4"]:  # the diagonal: cut points c5 and b4
        r, c = g.row_col(parse_cell(g, name))
        rows[r][c] = "X"
    for name in white:
        r, c = g.row_col(parse_cell(g, name))
        rows[r][c] = "O"
    drawing = "\n".join(" ".join(r) for r in rows)
    try:
        return from_ascii("xodd", drawing, to_move="white")
    except ValueError:  # even total: a far black stone restores an odd start
        rows[5][5] = "X"
        return from_ascii("xodd", "\n".join(" ".join(r) for r in rows), to_move="white")


@pytest.mark.parametrize(
    "white, can_cut",
    [
        ([], True),  # 0 white groups touch the cut points
        (["c6"], False),  # 1
        (["c6", "a4"], True),  # 2
        (["c6", "d5", "a4"], False),  # 3
        (["c6", "d5", "a4", "b3"], True),  # 4
    ],
)
def test_xodd_diagonal_connection(white, can_cut):
    s = _xodd_diagonal(white)
    g = s.geometry
    p1, p2 = parse_cell(g, "c5"), parse_cell(g, "b4")
    touching = {s.group_of(int(y)) for p in (p1, p2) for y in g.neighbours[p] if y >= 0 and s.board[y] == 2}
    assert len(touching) == len(white)
    cuts = [t for t, r in complete_turns(s) if r.board[p1] == 2 and r.board[p2] == 2]
    assert bool(cuts) == can_cut
    # safe or not, the black stones stay two groups until Black connects
    assert s.group_of(parse_cell(g, "b5")) != s.group_of(parse_cell(g, "c4"))


def _yodd_diamond(white: list[str]) -> GameState:
    g = hexhex(4)
    board = np.zeros(g.num_cells, dtype=int)
    for name in ["c5", "d4"]:  # the diamond's ends; middle cells d5 and c4
        board[parse_cell(g, name)] = 1
    for name in white:
        board[parse_cell(g, name)] = 2
    sym = {0: ".", 1: "X", 2: "O"}

    def drawing(b):
        lines = []
        for r in range(g.height):
            cells = [sym[b[r * g.width + c]] for c in range(g.width) if g.onboard[r * g.width + c]]
            lines.append(" ".join(cells))
        return "\n".join(lines)

    try:
        return from_ascii("yodd", drawing(board), to_move="white")
    except ValueError:
        board[parse_cell(g, "d1")] = 1
        return from_ascii("yodd", drawing(board), to_move="white")


@pytest.mark.parametrize(
    "white, can_cut",
    [
        ([], False),  # 0 white groups touch the middle cells: safe
        (["d6"], True),  # 1
        (["d6", "b4"], False),  # 2
        (["d6", "b4", "c3"], True),  # 3
    ],
)
def test_yodd_diamond(white, can_cut):
    s = _yodd_diamond(white)
    g = s.geometry
    m1, m2 = parse_cell(g, "d5"), parse_cell(g, "c4")
    a, b = parse_cell(g, "c5"), parse_cell(g, "d4")
    assert m2 in g.neighbours[m1]  # the middle cells touch each other
    assert {m1, m2} <= set(g.neighbours[a]) and {m1, m2} <= set(g.neighbours[b])
    touching = {s.group_of(int(y)) for p in (m1, m2) for y in g.neighbours[p] if y >= 0 and s.board[y] == 2}
    assert len(touching) == len(white)
    cuts = [t for t, r in complete_turns(s) if r.board[m1] == 2 and r.board[m2] == 2]
    assert bool(cuts) == can_cut


def test_placement_arithmetic_delta_is_one_minus_k():
    rng = np.random.default_rng(7)
    for g in (square(6), hexhex(4)):
        s = GameState(g)
        for _ in range(40):
            if s.is_terminal:
                break
            for x in np.flatnonzero(s.board == 0)[:10]:
                for colour in (0, 1):
                    k = s.adjacent_groups(int(x), colour)
                    b = list(s.board)
                    before = R.total(b, g.neighbours)
                    b[x] = colour + 1
                    assert R.total(b, g.neighbours) - before == 1 - k
                    assert s.parity_keeping()[colour, x] == (k % 2)
            s.apply(int(rng.choice(s.legal_actions())))


# ------------------------------------------------------- random-play invariants

RANDOM_PLAY = [(square(3), 600), (square(5), 600), (square(9), 250), (square(14), 40),
               (hexhex(2), 600), (hexhex(3), 600), (hexhex(6), 120), (hexhex(10), 15)]


@pytest.mark.parametrize("g, games", RANDOM_PLAY, ids=lambda v: f"{v.game}{v.size}" if hasattr(v, "game") else str(v))
def test_random_play_invariants(g, games):
    rng = np.random.default_rng(g.num_cells)
    bound = 3 * g.num_onboard + 2
    for _ in range(games):
        s = GameState(g)
        steps = 0
        while not s.is_terminal:
            mask = s.legal_action_mask()
            assert mask.sum() > 0, "empty mask before the end"
            turn = s.turn
            s.apply(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
            if s.turn != turn:
                assert s.total_groups % 2 == 1, "a turn ended with an even total"
            assert steps <= bound
        b, w = s.group_counts
        rb, rw = s.returns()
        assert rb + rw == 0 and abs(rb) == 1
        winner_groups, loser_groups = (b, w) if s.winner == 0 else (w, b)
        assert winner_groups < loser_groups
        assert (b, w) == (R.count_groups(list(s.board), g.neighbours, 1),
                          R.count_groups(list(s.board), g.neighbours, 2))


# ------------------------------------------------ fast mask against brute force

DIFFERENTIAL = [(square(3), 150), (square(4), 100), (square(5), 30), (square(7), 3),
                (hexhex(2), 150), (hexhex(3), 40), (hexhex(4), 3)]


@pytest.mark.parametrize("g, games", DIFFERENTIAL, ids=lambda v: f"{v.game}{v.size}" if hasattr(v, "game") else str(v))
def test_fast_mask_equals_brute_force(g, games):
    rng = np.random.default_rng(100 + g.num_cells)
    checked = 0
    for _ in range(games):
        s = GameState(g)
        while not s.is_terminal:
            mask = s.legal_action_mask()
            ref = R.legal_mask(s.board, g.neighbours, s.to_move, s.turn_step, s.first_turn)
            assert mask.tolist() == ref, f"mask differs on\n{to_ascii(s)}\n{s!r}"
            checked += 1
            s.apply(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 100


def test_copy_is_independent_and_cheap_to_compare():
    rng = np.random.default_rng(1)
    s = GameState(hexhex(5))
    for _ in range(30):
        s.apply(int(rng.choice(s.legal_actions())))
    t = s.copy()
    assert t == s and t is not s
    a = int(rng.choice(t.legal_actions()))
    t.apply(a)
    assert t != s and s.legal_action_mask() is not t.legal_action_mask()


def test_cell_names_round_trip():
    for g in (square(2), square(19), hexhex(2), hexhex(12)):
        for x in np.flatnonzero(g.onboard):
            assert parse_cell(g, cell_name(g, int(x))) == x
    g = square(9)
    assert cell_name(g, 0) == "a9" and cell_name(g, 80) == "i1"


def test_placement_classes_match_the_mask_and_parity():
    rng = np.random.default_rng(11)
    for g in (square(5), hexhex(3)):
        s = GameState(g)
        n = g.num_cells
        while not s.is_terminal:
            classes = s.placement_classes()
            mask, keep = s.legal_action_mask(), s.parity_keeping()
            own = s.to_move
            for colour, legal in ((own, mask[:n]), (1 - own, mask[n : 2 * n])):
                empty = s.board == 0
                assert np.array_equal(classes[colour] == -1, ~empty)
                assert np.array_equal((classes[colour] > 0) & empty, (legal == 1) & empty)
                assert np.array_equal(classes[colour][legal == 1], 1 + keep[colour][legal == 1])
            s.apply(int(rng.choice(s.legal_actions())))
