"""The game interface (odd_env.game) and the game-generic agents, arena and trainer on all three games."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import agents
from agents.arena import play_game, round_robin
from odd_env.game import BatchEngine, Game, Position, available_games, make

GAMES = [("xodd", 5, ""), ("yodd", 3, ""), ("yinsh", None, ""), ("yinsh", None, "blitz")]


def test_registry_and_interning():
    assert available_games() == ["xodd", "yinsh", "yodd"]
    assert make("xodd", 9) is make("xodd", 9) and make("xodd") is make("xodd", 9)
    assert make("yodd") is make("yodd", 6) and make("yinsh", 0) is make("yinsh")
    assert make("yinsh", variant="blitz") is not make("yinsh")
    for g in (make("xodd", 4), make("yinsh", variant="blitz")):
        assert pickle.loads(pickle.dumps(g)) is g
    assert make("yinsh").label == "yinsh" and make("yinsh", variant="blitz").label == "yinsh blitz"
    for bad, message in [(("go",), "unknown game 'go'"), (("xodd", 1), "from 2 to 19"),
                         (("yinsh", 11), "one board"), (("yinsh", None, "fast"), "variants"),
                         (("yodd", 6, "blitz"), "no variants")]:
        with pytest.raises(ValueError, match=message):
            make(*bad)
    # A game's helpers take its own positions only (an Xodd position once got a Yodd name).
    x5, y3, blitz = make("xodd", 5), make("yodd", 3), make("yinsh", variant="blitz")
    for call, message in [(lambda: y3.action_to_string(x5.new_state(), 0), "a position of yodd 3 is needed, got one "
                                                                            "of xodd 5"),
                          (lambda: y3.parse_action(x5.new_state(), "Ba1"), "yodd 3 is needed"),
                          (lambda: y3.summary(x5.new_state()), "yodd 3 is needed"),
                          (lambda: make("yinsh").action_to_string(x5.new_state(), 0), "a position of yinsh is needed"),
                          (lambda: make("yinsh").summary(blitz.new_state()), "got one of yinsh blitz"),
                          (lambda: x5.summary(None), "got one of NoneType")]:
        with pytest.raises(ValueError, match=message):
            call()
    # The types are checked before the cache: a game made earlier does not let 7.0 stand for 7.
    make("xodd", 7)
    assert make("xodd", np.int64(7)) is make("xodd", 7)
    for bad, message in [(("xodd", 7.0), "xodd size must be an integer .* got float: 7.0"),
                         (("xodd", [9]), "got list"), (("yinsh", False), "got bool"), (("yinsh", 0.0), "got float"),
                         (("yinsh", None, None), "variant must be a string"), (("xodd", 7, ["x"]), "got list")]:
        with pytest.raises(ValueError, match=message):
            make(*bad)
    # A Game stands for itself; a size or variant given with it must be its own (it was ignored).
    x9, blitz = make("xodd", 9), make("yinsh", variant="blitz")
    assert make(x9) is x9 and make(x9, 9) is x9 and make(blitz, 0, "blitz") is blitz and make(blitz) is blitz
    for bad, message in [((x9, 13), r"make\(Game\('xodd 9'\), size=13, variant=''\): that game has size 9 and "
                                     r"variant ''; pass its name \('xodd'\)"),
                         ((x9, None, "blitz"), "that game has size 9 and variant ''"),
                         ((blitz, None, "fast"), "that game has size 0 and variant 'blitz'")]:
        with pytest.raises(ValueError, match=message):
            make(*bad)


def test_registering_a_game_checks_the_name_the_factory_and_what_it_builds(monkeypatch, tmp_path):
    from odd_env import game as game_module

    (tmp_path / "not_a_game.py").write_text("def factory(name, size=None, variant=''):\n    return [name]\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    monkeypatch.setattr(game_module, "_FACTORIES", dict(game_module._FACTORIES))  # for this test only
    monkeypatch.setattr(game_module, "_CACHE", dict(game_module._CACHE))
    monkeypatch.setattr(game_module, "_INFER", dict(game_module._INFER))
    for args, message in [(("go", 42), "the factory of game 'go' must be 'module:function', got 42"),
                          (("go", "nocolon"), "must be 'module:function'"),
                          ((5, "a:b"), "a game name must be an identifier, got 5"),
                          (("xodd", "odd_env.games.yinsh.game:make_game"), "'xodd' is registered already .* overwrite=True")]:
        with pytest.raises(ValueError, match=message):
            game_module.register(*args)
    assert available_games() == ["xodd", "yinsh", "yodd"]  # nothing registered by a refused call
    assert make("xodd", 9).name == "xodd"  # the built-in is kept (once replaced, half cached)
    game_module.register("chess", "odd_env.game:nope")  # checked when the game is first made
    with pytest.raises(ValueError, match="game 'chess' is registered as 'odd_env.game:nope', which cannot be loaded"):
        make("chess")
    game_module.register("chess", "not_a_game:factory", overwrite=True)
    with pytest.raises(ValueError, match="returned list, not a Game"):
        make("chess")
    game_module.register("chess", "odd_env.games.yinsh.game:make_game", overwrite=True)
    assert make("chess").num_planes == make("yinsh").num_planes


@pytest.mark.parametrize("name,size,variant", GAMES)
def test_positions_and_engines_meet_the_interface(name, size, variant):
    g = make(name, size, variant)
    assert g.num_actions == g.point_planes * g.height * g.width + 1
    s = g.new_state()
    assert isinstance(s, Position) and s.game is g
    rng = np.random.default_rng(0)
    plies = 0
    while not s.is_terminal:
        mask = s.legal_action_mask()
        assert mask.shape == (g.num_actions,) and mask.any()
        obs = s.observation()
        assert obs.shape == g.observation_shape and obs.dtype == np.int8
        assert np.array_equal(obs[g.onboard_plane].reshape(-1).astype(bool), g.onboard)
        rebuilt = g.from_observation(obs)
        assert np.array_equal(rebuilt.legal_action_mask(), mask)
        assert rebuilt.key() == s.key() or name == "xodd" or name == "yodd"
        a = int(rng.choice(np.flatnonzero(mask)))
        assert g.parse_action(s, g.action_to_string(s, a)) == a
        child = s.child(a)
        assert child.key() != s.key()
        s.apply(a)
        assert s == child
        plies += 1
    assert sum(s.returns()) == 0 and (s.winner is None) == (s.returns() == (0.0, 0.0))
    assert g.record([]).to_text().split()[0] == name
    engine = g.new_batch(8)
    out = engine.reset()
    assert isinstance(engine, BatchEngine)
    assert out.observation.shape == (8, *g.observation_shape) and out.action_mask.shape == (8, g.num_actions)
    assert engine.game_state(0).game is g


@pytest.mark.parametrize("name,size,variant", GAMES)
def test_pickled_and_copied_positions_play_on_independently(name, size, variant):
    """The shared position frame (odd_env.common.position): a copy, a deep copy and an unpickled
    position equal the original and play on alone, their bookkeeping following their own vector;
    a pickle in the layout written before the frame (the slots as a dict) loads the same way."""
    import copy

    s = make(name, size, variant).new_state()
    rng = np.random.default_rng(1)
    for _ in range(6):
        s.apply(int(rng.choice(s.legal_actions())))
    slots = {slot: getattr(s, slot) for cls in type(s).__mro__ for slot in getattr(cls, "__slots__", ())
             if hasattr(s, slot)}
    old_style = type(s).__new__(type(s))
    old_style.__setstate__((None, {**slots, "data": s.data.copy(), "_meta": s._meta.copy()}))  # as pickle kept them
    for other in (s.copy(), copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s)), old_style):
        assert type(other) is type(s) and other == s and other.key() == s.key() and other.data is not s.data
        a = int(other.legal_actions()[0])
        other.apply(a)
        assert other.ply == s.ply + 1 and other == s.child(a) and other != s
    with pytest.raises(TypeError):
        hash(s)


def test_greedy_refuses_yinsh_and_mcts_adapts():
    s = make("yinsh").new_state()
    with pytest.raises(ValueError, match="greedy plays Xodd and Yodd only"):
        agents.load("greedy").act(s)
    with pytest.raises(ValueError, match="exist only for Xodd and Yodd"):
        agents.load("mcts", rollout="greedy").act(s)
    mcts = agents.load("mcts", simulations=30, seed=1)
    assert s.legal_action_mask()[mcts.act(s)]
    # the arena (and its command line) refuses them before any game, not at greedy's first move
    for spec, message in [("greedy", "agent 'greedy' cannot play yinsh: greedy plays Xodd and Yodd only"),
                          ("mcts:simulations=3,rollout=greedy", "cannot play yinsh: greedy rollouts and priors")]:
        with pytest.raises(ValueError, match=message):
            round_robin(["random", spec], "yinsh", None, games_per_pair=2, progress=False)
    assert agents.load("greedy").cannot_play(make("yodd", 4)) is None
    assert mcts.label == "mcts:simulations=30"


def test_arena_plays_yinsh_with_draws_counted_half():
    res = round_robin(["mcts:simulations=10", "random"], "yinsh", None, games_per_pair=2, seed=3,
                      progress=False, variant="blitz")
    assert len(res.games) == 2 and res.game == "yinsh" and res.variant == "blitz"
    for r in res.games:
        assert r.player_names == ("white", "black") and r.white == r.players[0]
        assert "white_rings_removed" in r.summary
    wins = res.wins[0, 1] + res.wins[1, 0]
    assert wins == 2.0
    a = play_game("random", "random", "yinsh", None, seed=5)
    b = play_game("random", "random", "yinsh", None, seed=5)
    assert a.actions == b.actions
    rec = make("yinsh").record(a.actions)
    assert rec.is_over and rec.replay().returns() == ({0: (1.0, -1.0), 1: (-1.0, 1.0)}.get(a.winner, (0.0, 0.0)))


def test_agents_play_from_yinsh_observations():
    import odd_env

    env = odd_env.yinsh_v0.env(blitz=True)
    env.reset(seed=0)
    player = agents.load("random", seed=0)
    for _ in range(40):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        a = player(obs)
        assert obs["action_mask"][a]
        env.step(a)


def test_arena_takes_a_game_with_its_own_size_and_refuses_another():
    x5 = make("xodd", 5)
    assert play_game("random", "random", x5, seed=1).plies > 0  # the default size=7 is not compared
    assert round_robin(["random", "greedy"], x5, games_per_pair=2, progress=False).size == 5
    with pytest.raises(ValueError, match=r"that game has size 5 and variant ''"):
        round_robin(["random", "greedy"], x5, 9, games_per_pair=2, progress=False)
    with pytest.raises(ValueError, match="that game has size 5"):
        play_game("random", "random", x5, None, variant="blitz")


def test_the_names_users_imported_before_the_game_folders_still_work():
    """odd_env.core and the old command modules are thin re-exports of the moved code."""
    import subprocess
    import sys

    import agents
    import odd_env
    from agents.ppo import PPOAgent
    from agents.rllib_train import Args as RLlibArgs
    from odd_env.core import BLACK, GameState, YinshState, hexhex, square

    assert (GameState, YinshState, hexhex, square) == (odd_env.GameState, odd_env.YinshState, odd_env.hexhex,
                                                       odd_env.square) and BLACK == 0
    assert type(agents.load("ppo", pretrained="xodd7")) is PPOAgent and RLlibArgs.__module__ == "agents.train.rllib_train"
    for command in ("agents.ppo", "agents.play"):  # a kept command name, and the new package
        out = subprocess.run([sys.executable, "-m", command, "--help"], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0 and f"python -m {command}" in out.stdout, (command, out.stderr[-500:])


PLAIN_TRACE = """
import json, sys, warnings
import numpy as np
warnings.simplefilter("error")  # an int8 sum that wraps warns: an error here
warnings.filterwarnings("ignore", "overflow encountered in scalar multiply", RuntimeWarning,
                        "odd_env.common.xorshift")  # xorshift64* multiplies modulo 2**64 on purpose
from odd_env.game import make
from agents.base import new_rng_state
out = []
for name, size in (("xodd", 13), ("yodd", 8), ("yinsh", None)):
    g = make(name, size)
    rng = np.random.default_rng(7)
    p = g.new_state()
    while not p.is_terminal:
        legal = p.legal_actions()
        out.append([int(a) for a in legal] if len(out) % 25 == 0 else len(legal))
        p = p.child(int(rng.choice(legal)))
    out.append(p.winner)
    if g.heuristics is not None:  # the greedy rollouts and priors of the MCTS agent, from the start
        start = g.new_state()
        out.append([g.heuristics.rollout(start, new_rng_state(np.random.default_rng(seed)), True, 0.1)
                    for seed in range(3)])
        out.append([float(v) for v in g.heuristics.prior_scores(start, start.legal_actions())])
json.dump(out, sys.stdout)
"""


def test_the_kernels_as_plain_python_play_as_the_compiled_ones(tmp_path):
    """With NUMBA_DISABLE_JIT=1 the kernels run as plain Python (for debugging and coverage): random
    games on large boards and greedy rollouts give the very same legal actions and winners as the
    compiled kernels. (Counting a legal mask of more than 127 actions once wrapped around in int8.)"""
    import os
    import subprocess
    import sys

    runs = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        done = subprocess.run([sys.executable, "-c", PLAIN_TRACE], env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(done.stdout)
    assert runs[0] == runs[1]
    assert max(len(x) for x in json.loads(runs[0]) if isinstance(x, list)) > 127
