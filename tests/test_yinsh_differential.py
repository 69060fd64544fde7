"""YinshState against the independent plain reference (tests/yinsh_reference.py), step by step.

Both are driven with the same random legal actions; at every decision the
decider, the exact mask, planes 0-5, the rings removed and the pool must
agree, and at the end the termination and the rewards. Random play from the
empty board rarely reaches a pass, so some games start from positions where
most rings are walled in by markers, or where the pool is nearly empty.
"""

import numpy as np
from yinsh_reference import RefYinsh

from odd_env.common.geometry import yinsh_board
from odd_env.games.yinsh.state import YinshState, parse_point, point_name


def compare(state: YinshState, ref: RefYinsh, where: str) -> None:
    assert state.is_terminal == ref.terminal, where
    if ref.terminal:
        assert state.returns() == ref.returns(), where
        return
    assert state.to_move == ref.to_move, where
    np.testing.assert_array_equal(state.legal_action_mask(), ref.legal_mask().astype(np.int8), err_msg=where)
    np.testing.assert_array_equal(state.observation()[:6], ref.planes(), err_msg=where)
    assert state.rings_removed == ref.rings_removed and state.pool == ref.pool, where


def play_both(state: YinshState, ref: RefYinsh, rng: np.random.Generator, label: str) -> tuple[int, set[str]]:
    """Random legal play to the end in both; returns (decisions, decision kinds seen)."""
    kinds = set()
    steps = 0
    compare(state, ref, f"{label}, start")
    while not ref.terminal:
        kinds.add(state.decision_name)
        action = int(rng.choice(state.legal_actions()))
        state.apply(action)
        ref.apply(action)
        steps += 1
        compare(state, ref, f"{label}, after decision {steps} ({action})")
    return steps, kinds


def run_games(games: int, seed: int) -> tuple[int, set[str]]:
    """``games`` random games from the empty board, every third in blitz."""
    rng = np.random.default_rng(seed)
    total, kinds = 0, set()
    for g in range(games):
        blitz = g % 3 == 2
        n, k = play_both(YinshState(blitz=blitz), RefYinsh(blitz=blitz), rng, f"game {g} (blitz={blitz})")
        total += n
        kinds |= k
    return total, kinds


def test_random_games_from_the_empty_board():
    decisions, kinds = run_games(100, seed=0)
    assert decisions > 10_000
    assert {"place", "move", "destination", "remove_row", "remove_ring"} <= kinds


def pattern_colour(point: int) -> int:
    """Marker colours in runs of two along every line ((i + 2j) mod 4): no rows of five."""
    return int((point // 11 + 2 * (point % 11)) % 4 >= 2)


# Rings that wall each other in: with every ray from them filled with markers up
# to a ring or the edge (42 and 46 markers), none of them can move.
WALLED = (("A3", "A4", "H11", "H3", "I11", "I4"), ("A4", "A5", "B4", "B5", "B6", "C5", "C6"))


def walled_in(rng: np.random.Generator) -> tuple[dict[str, int], dict[str, int], tuple[int, int]]:
    """(rings, markers, removed): a WALLED set with random colours (three or four rings
    each), its rays filled with markers, then up to three markers taken away so that
    some rings can move."""
    g = yinsh_board()
    names = WALLED[int(rng.integers(len(WALLED)))]
    colours = rng.permutation([0, 1] * 3 + [int(rng.integers(2))] * (len(names) - 6))
    ring_points = [parse_point(x) for x in names]
    fill = set()
    for x in ring_points:
        for ray in g.rays[x]:
            for y in ray:
                if y < 0 or y in ring_points:
                    break
                fill.add(int(y))
    fill -= {int(x) for x in rng.choice(sorted(fill), int(rng.integers(4)), replace=False)}
    rings = {x: int(c) for x, c in zip(names, colours)}
    removed = tuple(5 - int((colours == c).sum()) for c in (0, 1))
    return rings, {point_name(x): pattern_colour(x) for x in sorted(fill)}, removed


def test_random_games_from_walled_in_positions():
    rng = np.random.default_rng(100)
    passes = ended_by_passes = 0
    for played in range(100):
        rings, markers, removed = walled_in(rng)
        to_move = int(rng.integers(2))
        ref = RefYinsh.from_position(rings, markers, to_move=to_move, rings_removed=removed)
        state = YinshState.from_position(
            rings={c: [p for p, v in rings.items() if v == c] for c in (0, 1)},
            markers={c: [p for p, v in markers.items() if v == c] for c in (0, 1)},
            to_move=to_move, removed=removed)
        _, kinds = play_both(state, ref, rng, f"walled-in game {played} {rings}")
        passes += "pass" in kinds
        ended_by_passes += state.consecutive_passes == 2
    assert passes >= 30 and ended_by_passes >= 8  # the point of these starts


def test_random_games_near_the_end_of_the_pool():
    rng = np.random.default_rng(7)
    g = yinsh_board()
    points = [int(x) for x in np.flatnonzero(g.onboard)]
    for played in range(60):
        chosen = [int(x) for x in rng.choice(points, 10 + 48, replace=False)]
        rings = {point_name(x): i % 2 for i, x in enumerate(chosen[:10])}
        markers = {point_name(x): pattern_colour(x) for x in chosen[10:]}
        state = YinshState.from_position(
            rings={c: [p for p, v in rings.items() if v == c] for c in (0, 1)},
            markers={c: [p for p, v in markers.items() if v == c] for c in (0, 1)}, to_move=0)
        ref = RefYinsh.from_position(rings, markers, to_move=0)
        play_both(state, ref, rng, f"near-the-end game {played}")
