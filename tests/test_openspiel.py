"""odd_env.openspiel: the games registered in OpenSpiel agree with the library, and OpenSpiel's tools run on them."""

from __future__ import annotations

import importlib
import importlib.util
import pickle
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import odd_env.openspiel as ospiel  # noqa: E402  (registers the games)
from odd_env.game import make  # noqa: E402

CASES = [  # OpenSpiel game string, the library's make() arguments
    ("odd_env_xodd(board_size=3)", ("xodd", 3, "")),
    ("odd_env_xodd(board_size=5)", ("xodd", 5, "")),
    ("odd_env_yodd(board_size=3)", ("yodd", 3, "")),
    ("odd_env_yodd(board_size=4)", ("yodd", 4, "")),
    ("odd_env_yinsh(blitz=true)", ("yinsh", None, "blitz")),
    ("odd_env_yinsh", ("yinsh", None, "")),
]
SMALL = [c for c in CASES if c[0] != "odd_env_yinsh"]  # the standard YINSH is the slow one to simulate


@pytest.mark.parametrize("spec,args", CASES, ids=[c[0] for c in CASES])
def test_games_load_with_the_library_spaces(spec, args):
    game = pyspiel.load_game(spec)
    odd = make(*args)
    assert game.odd_game is odd
    assert game.num_distinct_actions() == odd.num_actions
    assert game.observation_tensor_shape() == list(odd.observation_shape)
    assert game.observation_tensor_size() == int(np.prod(odd.observation_shape))
    assert game.max_game_length() == ospiel.max_game_length(odd)
    assert (game.num_players(), game.min_utility(), game.max_utility(), game.utility_sum()) == (2, -1.0, 1.0, 0.0)
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert str(ospiel.load_game(*args)) == str(game)


def test_defaults_bounds_and_bad_parameters():
    assert pyspiel.load_game("odd_env_xodd").odd_game is make("xodd", 9)
    assert pyspiel.load_game("odd_env_yodd").odd_game is make("yodd", 6)
    assert pyspiel.load_game("odd_env_yinsh(blitz=false)").odd_game is make("yinsh")
    assert pyspiel.load_game("odd_env_xodd(board_size=5)").max_game_length() == 75  # 3 * 25 cells
    assert pyspiel.load_game("odd_env_yinsh").max_game_length() == 235
    assert pyspiel.load_game("odd_env_yinsh(blitz=true)").max_game_length() == 167
    with pytest.raises(ValueError, match="board_size must be from 2"):
        pyspiel.load_game("odd_env_xodd(board_size=1)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'size'"):
        pyspiel.load_game("odd_env_yodd(size=4)")


@pytest.mark.parametrize("spec", [c[0] for c in SMALL])
def test_openspiel_random_simulation_test(spec):
    """OpenSpiel's own conformance test (as its tic_tac_toe Python game runs it), with serialization."""
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("spec,args", CASES, ids=[c[0] for c in CASES])
def test_observations_legal_actions_and_returns_match_the_library(spec, args):
    game = pyspiel.load_game(spec)
    odd = make(*args)
    rng = np.random.default_rng(7)
    for _ in range(2 if args[0] != "yinsh" else 1):
        state, pos = game.new_initial_state(), odd.new_state()
        while True:
            assert state.is_terminal() == pos.is_terminal
            if pos.is_terminal:
                break
            player = state.current_player()
            assert player == pos.to_move
            legal = pos.legal_actions()
            assert state.legal_actions() == legal.tolist()
            assert state.legal_actions(1 - player) == []
            assert state.legal_actions_mask() == pos.legal_action_mask().tolist()
            planes = np.asarray(state.observation_tensor(), np.float32).reshape(odd.observation_shape)
            np.testing.assert_array_equal(planes, pos.observation())
            other = np.asarray(state.observation_tensor(1 - player)).reshape(odd.observation_shape)
            np.testing.assert_array_equal(other, pos.observation(1 - player))
            action = int(rng.choice(legal))
            assert state.action_to_string(player, action) == odd.action_to_string(pos, action)
            state.apply_action(action)
            pos.apply(action)
            assert state.position.key() == pos.key()
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        assert state.returns() == list(pos.returns())
        assert state.legal_actions() == []
        assert len(state.history()) <= game.max_game_length()
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(0)).reshape(odd.observation_shape),
                                      pos.observation(0))


def test_clone_pickle_and_serialization_keep_the_position():
    game = pyspiel.load_game("odd_env_yodd(board_size=3)")
    state = game.new_initial_state()
    for _ in range(5):
        state.apply_action(state.legal_actions()[-2])
    clone = state.clone()
    assert clone.position is not state.position and clone.position.key() == state.position.key()
    assert clone.history() == state.history() and str(clone) == str(state)
    clone.apply_action(clone.legal_actions()[0])  # the clone is independent
    assert len(state.history()) == 5 and state.position.key() != clone.position.key()
    for copy in (pickle.loads(pickle.dumps(state)), pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(game, state))[1]):
        assert copy.history() == state.history() and copy.position.key() == state.position.key()
        assert str(copy) == str(state)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    assert "moves: " in str(state) and state.observation_string(0) == str(state)
    with pytest.raises(ValueError, match="initial position only"):
        game.new_initial_state({"board": []})


def test_mcts_bot_plays_and_evaluate_bots_runs():
    from open_spiel.python.algorithms import evaluate_bots, mcts

    for spec, simulations in [("odd_env_xodd(board_size=3)", 30), ("odd_env_yinsh(blitz=true)", 4)]:
        game = pyspiel.load_game(spec)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
        bot = mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=np.random.RandomState(1))
        state = game.new_initial_state()
        assert bot.step(state) in state.legal_actions()
        for bots in ([bot, pyspiel.make_uniform_random_bot(1, 2)], [pyspiel.make_uniform_random_bot(0, 3), bot]):
            state = game.new_initial_state()
            returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(4))
            assert state.is_terminal() and returns == state.returns() and sum(returns) == 0


def test_mcts_finds_the_winning_pass():
    """White (to move, fewer groups of its own colour) ends the game with a pass after Black's pass."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("odd_env_xodd(board_size=3)")
    state = game.new_initial_state()
    odd = game.odd_game
    for name in ["Bb2", "Wa3", "Bc1", "pass"]:  # docs/rules/xodd_yodd.md section 3
        state.apply_action(odd.parse_action(state.position, name))
    assert state.current_player() == 1
    bot = mcts.MCTSBot(game, 2.0, 200, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(0))
    assert state.action_to_string(1, bot.step(state)) == "pass"


def test_import_without_openspiel_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    monkeypatch.delitem(sys.modules, "odd_env.openspiel")
    with pytest.raises(ImportError, match=r'pip install "odd-env\[openspiel\]"'):
        importlib.import_module("odd_env.openspiel")


def test_benchmark_script_plays_its_table(monkeypatch, capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    monkeypatch.syspath_prepend(str(root / "benchmarks"))  # the script imports its _args helpers from there
    spec = importlib.util.spec_from_file_location("bench_openspiel", root / "benchmarks" / "bench_openspiel.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setattr(sys, "argv", ["bench_openspiel.py", "--cases", "xodd:3", "--games", "2",
                                      "--simulations", "10", "--ours", "mcts;mcts:rollout=random,prior=none"])
    bench.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| xodd 3 |")]
    assert len(rows) == 2 and "| 2 |" in rows[0] and "`mcts:rollout=random,prior=none`" in rows[1]
    monkeypatch.setattr(sys, "argv", ["bench_openspiel.py", "--cases", "go:9"])
    with pytest.raises(SystemExit) as exc:
        bench.main()
    assert exc.value.code == 2 and "unknown game 'go'" in capsys.readouterr().err


def test_docs_example_runs_and_prints_what_it_says(capsys):
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "openspiel.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", page, re.S)
    exec(code, {})
    printed = capsys.readouterr().out.splitlines()
    expected = [c.strip() for c in re.findall(r"^print\(.*#(.*)$", code, re.M)]
    assert printed == expected
