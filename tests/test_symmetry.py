"""Board symmetries: group laws, adjacency, YINSH rows, and symmetric games replayed from the start."""

import pickle

import numpy as np
import pytest

from odd_env.games.yinsh.state import NUM_POINTS, parse_point, point_name, row_action, tables
from odd_env.game import make
from odd_env.symmetry import map_batch, symmetries

GAMES = [("xodd", 5, ""), ("xodd", 9, ""), ("yodd", 3, ""), ("yodd", 6, ""), ("yinsh", None, ""),
         ("yinsh", None, "blitz")]
IDS = [" ".join(str(p) for p in g if p) for g in GAMES]


@pytest.fixture(params=GAMES, ids=IDS)
def game(request):
    return make(*request.param)


def test_group_laws(game):
    group = symmetries(game)
    assert len(group) == (12 if game.hexagonal else 8)
    assert len({s.cells.tobytes() for s in group}) == len(group)  # distinct maps
    assert group[0].is_identity and sum(s.is_identity for s in group) == 1
    for s in group:
        assert s.then(s.inverse()).is_identity and s.inverse().then(s).is_identity
        assert s.inverse() in group
        for t in group:
            composed = s.then(t)
            assert composed in group  # equal cell, plane and action maps: a group action on all three
            assert np.array_equal(composed.cells, t.cells[s.cells])


def test_maps_are_automorphisms_of_the_board(game):
    g = game.extra["geometry"]
    onboard = np.asarray(game.onboard, dtype=bool)
    off = np.flatnonzero(~onboard)
    for s in symmetries(game):
        assert np.array_equal(s.cells[off], off)  # off-board cells stay where they are
        assert onboard[s.cells[onboard]].all()
        for x in np.flatnonzero(onboard):
            around = {int(s.cells[y]) for y in g.neighbours[x] if y >= 0}
            assert around == {int(y) for y in g.neighbours[s.cells[x]] if y >= 0}
        pass_ = game.num_actions - 1
        assert s.map_actions(pass_) == pass_
        hw = game.height * game.width
        for k in range(2 if game.name != "yinsh" else 1):  # point blocks map cell-wise
            assert np.array_equal(s.actions[k * hw : (k + 1) * hw], k * hw + s.cells)


def _row(action):
    d, s = divmod(action - NUM_POINTS, NUM_POINTS)
    return [s] + [int(y) for y in tables().rays[s, d, :4]]


def test_yinsh_rows_map_to_the_rows_of_the_same_five_points():
    t = tables()
    rows = [NUM_POINTS + d * NUM_POINTS + int(s) for d in range(3) for s in np.flatnonzero(t.row_ends[d] >= 0)]
    assert len(rows) == 3 * 41  # lines of 4, 7, 8, 9, 10, 9, 10, 9, 8, 7, 4 points: 41 rows of five each way
    reversed_rows = 0
    for sym in symmetries("yinsh"):
        images = [sym.map_actions(a) for a in rows]
        assert sorted(images) == sorted(rows)  # a bijection of the rows that fit on the board
        for a, b in zip(rows, images):
            assert sorted(sym.map_cells(np.array(_row(a))).tolist()) == sorted(_row(b))
            reversed_rows += sym.map_cells(_row(a)[0]) != _row(b)[0]  # named from the other end
    assert reversed_rows > 0
    # Rotating by 180 degrees reverses every direction: each row is named from its other end.
    half_turn = next(s for s in symmetries("yinsh") if s.name == "rotate 180")
    a = row_action("B1", "B5")  # along column B, numbers increasing: from B1
    b = half_turn.map_actions(a)
    image = [point_name(half_turn.map_cells(parse_point(p))) for p in ("B1", "B5")]
    assert image == ["J11", "J7"]
    assert b == row_action("J7", "J11") and (b - NUM_POINTS) // NUM_POINTS == 0  # still a column, from J7
    assert b - NUM_POINTS == parse_point("J7")


def _random_game(game, rng):
    """(actions, observations, masks) of a random game, the observation and mask before each action."""
    state, actions, observations, masks = game.new_state(), [], [], []
    while not state.is_terminal:
        legal = state.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        observations.append(state.observation())
        masks.append(state.legal_action_mask().copy())
        actions.append(action)
        state.apply(action)
    return actions, observations, masks


def _check_symmetric_replay(game, sym, actions, observations, masks):
    state = game.new_state()
    for action, obs, mask in zip(actions, observations, masks):
        assert np.array_equal(state.legal_action_mask(), sym.map_mask(mask))
        assert np.array_equal(state.observation(), sym.map_planes(obs))
        state.apply(sym.map_actions(action))  # raises if the mapped action is illegal
    assert state.is_terminal


@pytest.mark.parametrize("name,size,games", [("xodd", 5, 3), ("xodd", 9, 1), ("yodd", 3, 4), ("yodd", 6, 1)])
def test_symmetric_games_of_xodd_and_yodd(name, size, games):
    game = make(name, size)
    rng = np.random.default_rng(size)
    for _ in range(games):
        record = _random_game(game, rng)
        for sym in symmetries(game):
            _check_symmetric_replay(game, sym, *record)


def test_symmetric_games_of_yinsh_with_row_removals():
    game = make("yinsh")
    rng = np.random.default_rng(7)
    rows_removed = 0
    while rows_removed < 2:  # games until the replays have covered rows in play
        actions, observations, masks = record = _random_game(game, rng)
        rows_removed += sum(NUM_POINTS <= a < 4 * NUM_POINTS for a in actions)
        for sym in symmetries(game):
            _check_symmetric_replay(game, sym, *record)
    assert rows_removed >= 2


def test_batches_map_like_single_samples(game):
    rng = np.random.default_rng(0)
    actions, observations, masks = _random_game(game, rng)
    obs, mask, act = np.array(observations), np.array(masks), np.array(actions)
    group = symmetries(game)
    which = rng.integers(len(group), size=len(act))
    o2, m2, a2 = map_batch(group, which, obs, mask, act)
    for i, k in enumerate(which):
        assert np.array_equal(o2[i], group[k].map_planes(obs[i]))
        assert np.array_equal(m2[i], group[k].map_mask(mask[i]))
        assert a2[i] == group[k].map_actions(int(act[i]))
        assert m2[i, a2[i]]  # a legal action stays legal under the mapped mask
    assert np.array_equal(group[3].map_planes(obs), np.array([group[3].map_planes(o) for o in obs]))
    assert map_batch(group, which, mask=mask)[0] is None


def test_symmetries_pickle_and_refuse_bad_input():
    group = symmetries(make("yodd", 3))
    for s in group:
        assert pickle.loads(pickle.dumps(s)) is s
    for made in (group[3].then(group[2]), group[5].inverse()):  # once: "yodd 3 has no symmetry named ..."
        back = pickle.loads(pickle.dumps(made))
        assert back == made and back.name == made.name and back in group
    s = group[1]
    assert s.map_actions([]).shape == (0,) and s.map_cells([]).shape == (0,)  # once refused (float dtype)
    with pytest.raises(ValueError, match="got a scalar"):
        map_batch(group, np.array([0]), obs=np.int8(0))
    with pytest.raises(ValueError, match=r"planes of yodd 3 have shape \(\.\.\., 12, 5, 5\)"):
        s.map_planes(np.zeros((12, 7, 7), dtype=np.int8))
    with pytest.raises(ValueError, match="mask has 51 entries"):
        s.map_mask(np.zeros(50, dtype=bool))
    with pytest.raises(ValueError, match=r"actions are integers in \[0, 51\)"):
        s.map_actions(51)
    with pytest.raises(ValueError, match="symmetry indices in"):
        map_batch(group, np.array([12]), mask=np.zeros((1, 51), dtype=bool))
    with pytest.raises(ValueError, match="cannot compose"):
        s.then(symmetries(make("yodd", 4))[1])
    with pytest.raises(ValueError, match="unknown game"):
        symmetries("chess")
    # Xodd 7 and Yodd 4 planes have one shape (12, 7, 7): the on-board plane tells them apart
    x7, y4 = symmetries(make("xodd", 7)), symmetries(make("yodd", 4))
    yodd_planes = make("yodd", 4).new_state().observation()
    with pytest.raises(ValueError, match=r"these planes are not of xodd 7: their on-board plane differs"):
        x7[1].map_planes(yodd_planes)
    with pytest.raises(ValueError, match="these planes are not of xodd 7"):
        map_batch(x7, np.array([1]), obs=yodd_planes[None])
    with pytest.raises(ValueError, match="symmetries of one game"):
        map_batch(x7[:2] + y4[:1], np.array([0]), obs=yodd_planes[None])
    with pytest.raises(ValueError, match="takes a Game .* or a game name, got int"):
        symmetries(5)
    with pytest.raises(ValueError, match="then takes a Symmetry"):
        s.then(5)
    # lists are taken as arrays
    planes = make("yodd", 3).new_state().observation()
    out, _, _ = map_batch(group, np.array([1]), obs=[planes.tolist()])
    np.testing.assert_array_equal(out[0], s.map_planes(planes))
