"""The exact solver of small Xodd/Yodd boards, the perfect player and ``python -m agents.solve`` (issue 39).

The reference is a plain minimax written here on the public Position API
only (``legal_actions``, ``child``, ``is_terminal``, ``winner``, ``to_move``,
``key``), memoised on ``key()``: nothing is shared with the solver.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
from odd_env.game import make
from odd_env.games.odd import solver as S

ROOT = Path(__file__).resolve().parents[1]


def all_values(game):
    """{key: (position, value for the player to act)} of every reachable running position (no pruning)."""
    values: dict[bytes, tuple] = {}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(pos):
        k = pos.key()
        hit = values.get(k)
        if hit is not None:
            return hit[1]
        me = pos.to_move
        best = -1
        for a in pos.legal_actions():
            child = pos.child(int(a))
            if child.is_terminal:
                v = 1 if child.winner == me else -1
            else:
                v = visit(child)
                if child.to_move != me:
                    v = -v
            best = max(best, v)
        values[k] = (pos, best)
        return best

    visit(game.new_state())
    return values


@pytest.fixture(scope="module")
def reference():
    return {(name, size): all_values(make(name, size)) for name, size in (("xodd", 2), ("xodd", 3), ("yodd", 2))}


@pytest.mark.parametrize("name,size", [("xodd", 2), ("xodd", 3), ("yodd", 2)])
def test_every_reachable_position_matches_minimax(reference, name, size):
    values = reference[(name, size)]
    solver = S.Solver(make(name, size), table_bits=18)
    wrong = [pos for pos, v in values.values() if solver.value(pos) != v]
    assert not wrong, f"{len(wrong)} of {len(values)} positions differ, e.g. {wrong[0].key().hex()}"
    assert len(values) > (100_000 if (name, size) == ("xodd", 3) else 100)


@pytest.mark.parametrize("name,size,winner,first", [("xodd", 2, 1, []), ("xodd", 3, 0, ["Bb2"]),
                                                    ("yodd", 2, 0, ["Bb2"])])
def test_solve_from_the_empty_board(reference, name, size, winner, first):
    game = make(name, size)
    result = S.solve(game, table_bits=18)
    root = reference[(name, size)][game.new_state().key()][1]
    assert result.winner == winner and result.value == root == (1 if winner == 0 else -1)
    assert result.winning_moves == first and result.complete
    assert result.nodes > 0 and result.table_entries > 0 and result.root_moves == game.new_state().legal_actions().size
    # every listed winning turn wins, and every other first stone loses
    pos = game.new_state()
    for a in pos.legal_actions():
        child = pos.child(int(a))
        v = -reference[(name, size)][child.key()][1]
        assert (v == 1) == ([int(a)] in result.winning_actions)


def test_winning_turns_mid_game_are_exactly_the_winning_ones(reference):
    game = make("xodd", 3)
    values = reference[("xodd", 3)]
    rng = np.random.default_rng(5)
    solver = S.Solver(game, 18)
    checked = 0
    for pos, v in list(values.values())[::997]:
        if pos.observation()[5].flat[0] or v != 1:
            continue  # step 1 of a won position
        result = solver.solve(pos)
        assert result.value == 1 and result.winner == pos.to_move and result.winning_moves
        for turn in result.winning_actions:
            p = pos.copy()
            for a in turn:
                p.apply(a)
            assert p.is_terminal and p.winner == pos.to_move or not p.is_terminal and values[p.key()][1] == -1
        checked += 1
    assert checked > 10
    del rng


def test_save_load_round_trip_and_corruption(tmp_path):
    game = make("xodd", 3)
    solver = S.Solver(game, 18)
    result = solver.solve(game.new_state())
    path = tmp_path / "x3.solve"
    header = solver.save(path)
    assert header["entries"] == solver.table_entries and header["rules_version"] == S.RULES_VERSION
    other = S.Solver(game, 18)
    loaded = other.load(path)
    assert loaded["result"]["winning_moves"] == result.winning_moves
    assert other.result.winner == result.winner
    # the loaded table answers the root without searching
    nodes = other.total_nodes
    assert other.value(game.new_state()) == 1
    assert other.total_nodes - nodes <= 1
    # a smaller file of the larger proofs only still gives the right values
    small = tmp_path / "small.solve"
    solver.save(small, min_work=4)
    third = S.Solver(game, 18)
    assert third.load(small)["entries"] < header["entries"]
    assert third.value(game.new_state()) == 1
    # corruption: a flipped payload byte, a cut file, a foreign file, another board
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    bad = tmp_path / "bad.solve"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        S.Solver(game, 18).load(bad)
    bad.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match="checksum"):
        S.Solver(game, 18).load(bad)
    bad.write_bytes(b"hello")
    with pytest.raises(ValueError, match="not a solver table"):
        S.Solver(game, 18).load(bad)
    with pytest.raises(ValueError, match="xodd 3, not yodd 2"):
        S.Solver(make("yodd", 2), 18).load(path)


def test_bad_input():
    with pytest.raises(ValueError, match="Xodd and Yodd"):
        S.Solver(make("yinsh"))
    with pytest.raises(ValueError, match="too big"):
        S.Solver(make("xodd", 9))
    with pytest.raises(ValueError, match="too big"):
        S.solve(make("yodd", 5))
    with pytest.raises(ValueError, match="a position of xodd 3"):
        S.Solver(make("xodd", 3)).value(make("xodd", 4).new_state())
    with pytest.raises(ValueError, match="Game"):
        S.solve("xodd")
    game = make("xodd", 2)
    pos = game.new_state()
    while not pos.is_terminal:
        pos.apply(int(pos.legal_actions()[-1]))
    with pytest.raises(ValueError, match="over"):
        S.Solver(game, 10).solve(pos)


def test_checkpoint_and_time_limit(tmp_path):
    game = make("xodd", 3)
    solver = S.Solver(game, 18)
    solver.CHUNK = 500  # many kernel calls: restarts from the table
    seen = []
    ckpt = tmp_path / "ck" / "x3.ckpt"
    result = solver.solve(game.new_state(), progress=seen.append, checkpoint=ckpt, checkpoint_every=0.0)
    assert result.value == 1 and len(seen) > 5 and ckpt.exists()
    resumed = S.Solver(game, 18)
    header = resumed.load(ckpt)
    assert header["root_done"]
    again = resumed.solve(game.new_state(), done=header["root_done"])
    assert again.winning_moves == ["Bb2"]
    timed = S.Solver(make("xodd", 4), 16)
    timed.CHUNK = 1000
    out = timed.solve(make("xodd", 4).new_state(), time_limit=0.01)
    assert out.value is None and out.winner is None and not out.complete


def test_perfect_player_never_loses_a_won_game():
    for name, size, side in (("xodd", 3, 0), ("yodd", 2, 0), ("xodd", 2, 1)):
        game = make(name, size)
        perfect = agents.load("perfect", game=game)
        assert isinstance(perfect, agents.PerfectAgent)
        for spec in ("random", "greedy"):
            opponent = agents.load(spec)
            for i in range(12 if size == 3 else 6):
                opponent.reset(i)
                pos = game.new_state()
                while not pos.is_terminal:
                    player = perfect if pos.to_move == side else opponent
                    pos.apply(int(player.act(pos)))
                assert pos.winner == side, (name, size, spec, i)


def test_perfect_player_refuses_other_games():
    perfect = agents.load("perfect")
    assert "no exact solver" in perfect.cannot_play(make("yinsh"))
    assert perfect.cannot_play(make("xodd", 9))
    assert perfect.cannot_play(make("xodd", 3)) is None


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "agents.solve", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_cli(tmp_path):
    save = tmp_path / "x3.solve"
    out = run_cli("--game", "xodd", "--board-size", "3", "--save", str(save), "--quiet")
    assert out.returncode == 0, out.stderr
    assert "black wins with perfect play" in out.stdout and "Bb2" in out.stdout and "nodes" in out.stdout
    out = run_cli("--game", "xodd", "--board-size", "3", "--load", str(save), "--rate", "random", "--games", "2",
                  "--quiet")
    assert out.returncode == 0, out.stderr
    assert "exactness" in out.stdout
    record = tmp_path / "game.txt"
    record.write_text("xodd 3\nBb2\nWa3,Bc1\n")
    out = run_cli("--from", str(record), "--quiet")
    assert out.returncode == 0, out.stderr
    assert "wins with perfect play" in out.stdout
    for args, message in ((("--game", "yinsh"), "no exact solver"), (("--game", "xodd", "--board-size", "9"), "too big"),
                          (("--game", "xodd", "--board-size", "3", "--load", str(record)), "not a solver table")):
        out = run_cli(*args, "--quiet")
        assert out.returncode == 2 and message in out.stderr, (args, out.stderr)


@pytest.mark.parametrize("name,size,value", [("xodd", 2, -1), ("xodd", 3, 1), ("xodd", 4, -1), ("yodd", 2, 1),
                                             ("yodd", 3, 1)])
def test_shipped_tables_load_and_answer_the_root(name, size, value):
    path = S.shipped_table(name, size)
    assert path is not None and os.path.getsize(path) < 1_000_000
    solver = S.Solver(make(name, size), 18)
    header = solver.load(path)
    assert header["result"]["value"] == value and solver.result.value == value
    nodes = solver.total_nodes
    assert solver.value(make(name, size).new_state()) == value
    assert solver.total_nodes - nodes <= 1  # the root is in the table
