"""A game that odd_env and agents have never heard of (tic-tac-toe, tests/toy_game.py) plays through
every generic part: the registry, random and MCTS players, the arena, the PPO trainer, the
AEC env with PettingZoo's api_test, and a terminal play session."""

import io

import numpy as np
import pytest
from pettingzoo.test import api_test

import agents
import toy_game
from agents.arena import round_robin
from agents.play.cli import main as play_main
from agents.play.session import PlaySession
from odd_env.game import available_games, make, unregister


@pytest.fixture(autouse=True)
def tictactoe():
    toy_game.register()
    yield make("tictactoe")
    unregister("tictactoe")


def position(moves: str):
    game = make("tictactoe")
    state = game.new_state()
    for word in moves.split():
        state.apply(game.parse_action(state, word))
    return state


def test_the_game_is_registered_and_made_like_the_others(tictactoe):
    assert "tictactoe" in available_games()
    assert tictactoe is make("tictactoe") and tictactoe.num_actions == 10
    assert tictactoe.observation_shape == (3, 3, 3)


def test_random_plays_whole_games_legally(tictactoe):
    player = agents.load("random", seed=1)
    for _ in range(20):
        state = tictactoe.new_state()
        while not state.is_terminal:
            action = player.act(state)
            assert state.legal_action_mask()[action]
            state.apply(action)
        assert state.returns() in ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0))


def test_mcts_takes_a_win_in_one_and_blocks_a_loss_in_one():
    # X to play: a1 b1 are X's, so c1 wins.
    state = position("a1 a3 b1 b3")
    assert state.to_move == 0
    mcts = agents.load("mcts", simulations=300, seed=0)
    assert mcts.act(state) == make("tictactoe").parse_action(state, "c1")
    # O to play: X threatens c3 (a3 b3); O must block.
    state = position("a3 a1 b3")
    assert mcts.act(state) == make("tictactoe").parse_action(state, "c3")


def test_the_arena_rates_mcts_above_random():
    table = round_robin(["mcts:simulations=50", "random"], game="tictactoe", size=None, games_per_pair=20,
                        seed=0, progress=False)
    rate, low, high, games = table.win_rate(0, 1)
    assert games == 20 and rate > 0.6


def test_ppo_trains_a_few_updates_and_its_checkpoint_plays(tmp_path, tictactoe):
    from agents.train.ppo import Args, PPOAgent, train

    args = Args(game="tictactoe", num_games=16, rollout_steps=8, channels=8, blocks=1, minibatch_size=64,
                update_epochs=1, eval_every=0, snapshot_every=2, checkpoint_every=2, run_dir=str(tmp_path / "run"),
                tensorboard=False, progress=False, threads=1, total_steps=16 * 8 * 3, seed=3)
    trainer = train(args)
    assert trainer.global_step >= 16 * 8 * 3
    player = PPOAgent(path=str(tmp_path / "run" / "last.pt"))
    state = tictactoe.new_state()
    while not state.is_terminal:
        state.apply(player.act(state))


def test_the_aec_env_passes_pettingzoos_api_test():
    env = toy_game.env()
    api_test(env, num_cycles=50)
    env.reset(seed=0)
    assert env.agents == ["x_0", "o_0"] and env.infos["x_0"] == {"empty": 9}


def test_the_batched_engine_steps_and_resumes_from_saved_histories(tictactoe):
    engine = tictactoe.new_batch(4)
    out = engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(3):
        out = engine.step(engine.random_actions(rng))
    saved = engine.get_states()
    again = tictactoe.new_batch(4)
    again.set_states(saved)
    assert np.array_equal(again.last.observation, out.observation)
    with pytest.raises(ValueError, match="illegal action"):
        engine.step(np.full(4, 9))  # the never-legal pass


def test_a_terminal_session_plays_the_game(monkeypatch, capsys, tmp_path):
    session = PlaySession("tictactoe", opponent="random", human="x", seed=0)
    session.play_text("b2")
    assert session.state.board[4] == 1 and session.to_move == 0
    with pytest.raises(ValueError, match="taken"):
        session.play_text("b2")
    monkeypatch.setattr("sys.stdin", io.StringIO("b2\nquit\n"))
    assert play_main(["--game", "tictactoe", "--opponent", "random", "--as", "x", "--seed", "0",
                      "--save", str(tmp_path / "game.txt")]) == 0
    assert "x" in capsys.readouterr().out
