"""The compiled single-position rules (:attr:`odd_env.game.Game.compiled`) against the Position API.

Every game that offers compiled rules is played at random through both paths side by side:
the masks, the legal-action lists, the player to decide, the end, the returns and the
observation planes agree at every decision. The kernels are also called from inside
compiled code (as a compiled search calls them), with the functions passed as arguments.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import odd_env.games  # noqa: F401  (registers the games)
from odd_env.game import CompiledRules, make

CASES = [("yinsh", None, ""), ("yinsh", None, "blitz"), ("xodd", 2, ""), ("xodd", 5, ""), ("xodd", 9, ""),
         ("yodd", 2, ""), ("yodd", 4, ""), ("yodd", 6, "")]


def _game(name, size, variant):
    game = make(name, size, variant)
    assert game.compiled is not None, f"{game.label} has no compiled rules"
    return game


@pytest.mark.parametrize("name,size,variant", CASES)
def test_compiled_rules_agree_with_the_position_api_over_random_games(name, size, variant):
    game = _game(name, size, variant)
    rules = game.compiled()
    assert isinstance(rules, CompiledRules)
    assert game.compiled() is rules  # built once per game and size
    assert rules.num_actions == game.num_actions
    assert (rules.num_planes, rules.height, rules.width) == game.observation_shape
    t = rules.tables
    rng = np.random.default_rng(7)
    mask = np.zeros(rules.num_actions, np.int8)
    actions = np.zeros(rules.num_actions, np.int32)
    obs = np.zeros((rules.num_planes, rules.height * rules.width), np.int8)
    decisions = 0
    for _ in range(12 if name == "yinsh" else 30):
        s = rules.new_state(t)
        assert s.dtype == np.int32 and s.shape == (rules.state_size,)
        position = game.new_state()
        np.testing.assert_array_equal(s, rules.encode(position))
        while True:
            assert bool(rules.is_terminal(s, t)) == position.is_terminal
            assert rules.returns(s, t) == tuple(position.returns())
            if position.is_terminal:
                assert rules.legal_mask(s, t, mask) == 0
                break
            assert rules.to_move(s, t) == position.to_move
            count = rules.legal_mask(s, t, mask)
            np.testing.assert_array_equal(mask.astype(bool), position.legal_action_mask().astype(bool))
            assert count == int(mask.sum()) <= rules.max_legal
            assert rules.legal_actions(s, t, actions) == count
            assert sorted(actions[:count].tolist()) == sorted(position.legal_actions().tolist())
            for viewer in (0, 1):
                rules.observe(s, t, viewer, obs)
                np.testing.assert_array_equal(obs.reshape(game.observation_shape), position.observation(viewer))
            action = int(rng.choice(actions[:count]))
            rules.apply(s, t, action)
            position.apply(action)
            np.testing.assert_array_equal(s, rules.encode(position))
            decisions += 1
    assert decisions > 100


@pytest.mark.parametrize("name,size,variant", [CASES[0], CASES[3], CASES[6]])
def test_compiled_rules_decode_checks_and_round_trips(name, size, variant):
    game = _game(name, size, variant)
    rules = game.compiled()
    s = rules.new_state(rules.tables)
    position = rules.decode(s)
    assert position.game is game
    np.testing.assert_array_equal(rules.encode(position), s)
    bad = s.copy()
    bad[:] = 99
    with pytest.raises(ValueError):
        rules.decode(bad)
    other = make("yodd", 3) if name != "yodd" else make("xodd", 3)
    with pytest.raises(ValueError, match="position of"):
        rules.encode(other.new_state())


@njit(cache=True)
def _random_games(rules_new_state, legal_actions, apply, is_terminal, returns, to_move, tables, num_actions,
                  games, seed):
    """Random play entirely in compiled code: (decisions, wins of player 0, wins of player 1, faults).

    (No ``assert`` in here: pytest rewrites asserts into calls numba cannot compile.)"""
    np.random.seed(seed)
    actions = np.empty(num_actions, np.int32)
    decisions = 0
    wins = np.zeros(2, np.int64)
    faults = 0
    for _ in range(games):
        s = rules_new_state(tables)
        while not is_terminal(s, tables):
            player = to_move(s, tables)
            if player != 0 and player != 1:
                faults += 1
            count = legal_actions(s, tables, actions)
            apply(s, tables, actions[np.random.randint(count)])
            decisions += 1
        r0, r1 = returns(s, tables)
        if r0 != -r1:
            faults += 1
        if r0 > 0:
            wins[0] += 1
        elif r1 > 0:
            wins[1] += 1
    return decisions, wins[0], wins[1], faults


@pytest.mark.parametrize("name,size,variant", [CASES[1], CASES[4], CASES[7]])
def test_compiled_rules_run_inside_compiled_code(name, size, variant):
    game = _game(name, size, variant)
    r = game.compiled()
    decisions, w0, w1, faults = _random_games(r.new_state, r.legal_actions, r.apply, r.is_terminal, r.returns, r.to_move,
                                      r.tables, r.num_actions, 50, 3)
    assert faults == 0
    assert decisions > 50 * 10
    assert w0 + w1 <= 50 and w0 > 0 and w1 > 0


def test_every_game_has_compiled_rules_and_the_largest_boards_fit_their_scratch():
    from odd_env.common.geometry import HEX_SIZES, SQUARE_SIZES
    from odd_env.games.odd.kernels import MAX_CELLS

    for name in ("xodd", "yodd", "yinsh"):  # the package's games (tests may register toy games without them)
        assert make(name).compiled is not None, name
    for name, size in (("xodd", SQUARE_SIZES[-1]), ("yodd", HEX_SIZES[-1])):
        game = make(name, size)
        assert game.height * game.width <= MAX_CELLS
        r = game.compiled()
        decisions, w0, w1, faults = _random_games(r.new_state, r.legal_actions, r.apply, r.is_terminal, r.returns,
                                                  r.to_move, r.tables, r.num_actions, 3, 5)
        assert faults == 0 and decisions > 3 * game.onboard.sum() // 2 and w0 + w1 == 3
