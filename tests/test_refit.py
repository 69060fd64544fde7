"""agents.train.refit: a network's value head refit on the outcomes of its own games."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.train import checkpoint as ckpt_io  # noqa: E402
from agents.train.ppo import train  # noqa: E402
from agents.train.refit import RefitOptions, refit, self_play  # noqa: E402
from odd_env.game import make as make_game  # noqa: E402

from test_ppo import small_args  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FAST = RefitOptions(games=400, num_games=64, epochs=10, explore_plies=6, lr=3e-3, batch_size=128)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("refit")
    train(small_args(tmp, total_steps=32 * 16 * 4))
    return tmp / "run" / "last.pt"


def test_refit_fits_the_value_to_held_out_outcomes_and_records_how(source, tmp_path):
    record = refit(source, tmp_path / "out.pt", FAST, progress=False)
    assert record["after"]["value_mse"] < record["before"]["value_mse"] - 0.15
    assert record["after"]["value_accuracy"] > record["before"]["value_accuracy"] + 0.1
    meta = ckpt_io.read_metadata(tmp_path / "out.pt")
    assert meta["kind"] == ckpt_io.NETWORK_KIND
    assert meta["source_sha256"] == ckpt_io.read_metadata(source)["sha256"]
    assert meta["refit"]["games"] == 400 and meta["refit"]["explore_plies"] == 6
    assert meta["refit"]["after"] == record["after"]
    assert meta["args"] == ckpt_io.read_metadata(source)["args"]  # the recipe of the trained network stays
    # The refit network plays wherever a checkpoint does.
    player = agents.load("ppo", path=str(tmp_path / "out.pt"))
    search = agents.load("mcts", network=str(tmp_path / "out.pt"), simulations=16)
    state = player.game.new_state()
    while not state.is_terminal:
        mover = player if state.to_move == 0 else search
        action = mover.act(state)
        assert state.legal_action_mask()[action]
        state.apply(action)


def test_refit_repeats_exactly_for_a_seed_and_the_policy_weight_keeps_the_policy(source, tmp_path):
    a = refit(source, tmp_path / "a.pt", FAST, progress=False)
    refit(source, tmp_path / "b.pt", FAST, progress=False)
    wa, wb = (ckpt_io.load(tmp_path / f"{x}.pt")["model"] for x in "ab")
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], rtol=0, atol=0)
    loose = refit(source, tmp_path / "c.pt", RefitOptions(**{**FAST.__dict__, "policy_weight": 0.0}), progress=False)
    assert a["after"]["same_best_action"] > loose["after"]["same_best_action"]


def test_value_only_refit_keeps_the_policy_bit_for_bit_and_still_fits_the_value(source, tmp_path):
    record = refit(source, tmp_path / "v.pt", RefitOptions(**{**FAST.__dict__, "train": "value"}), progress=False)
    assert record["train"] == "value" and record["after"]["same_best_action"] == 1.0
    assert record["after"]["value_mse"] < record["before"]["value_mse"] - 0.05
    before, after = ckpt_io.load(source)["model"], ckpt_io.load(tmp_path / "v.pt")["model"]
    changed = {k for k in after if not torch.equal(before[k], after[k])}
    assert changed and all(k.split(".")[0] in ("value_conv", "value_fc", "value_out") for k in changed)
    # The same weights outside the value head: the same logits on any input, so the same player.
    old, new = ckpt_io.load_network(source), ckpt_io.load_network(tmp_path / "v.pt")
    x = torch.from_numpy(np.stack([make_game("xodd", 4).new_state().observation()] * 2))
    with torch.no_grad():
        assert torch.equal(old(x)[0], new(x)[0]) and not torch.equal(old(x)[1], new(x)[1])
    with pytest.raises(ValueError, match="--train must be one of all, value"):
        refit(source, tmp_path / "w.pt", RefitOptions(train="policy"), progress=False)
    assert not (tmp_path / "w.pt").exists()


def test_self_play_keeps_positions_from_the_switch_on_with_each_games_result():
    net = agents.load("ppo", pretrained="xodd7").network
    game = make_game("xodd", 7)
    # No exploration: every game is the network's own most probable line, so all are the same game.
    data = self_play(net, game, RefitOptions(games=12, num_games=4, explore_plies=0))
    per_game = [data["z"][data["game"] == g] for g in range(12)]
    assert all(np.array_equal(z, per_game[0]) for z in per_game)
    assert set(np.unique(data["z"])) <= {-1.0, 1.0} and data["mask"].any(axis=1).all()
    # Replaying that line: the kept positions are its positions, each with the result for its player.
    state, player = game.new_state(), agents.load("ppo", pretrained="xodd7")
    expected = []
    while not state.is_terminal:
        expected.append((state.observation(), state.to_move))
        state.apply(player.act(state))
    winner = state.winner
    first = data["game"] == 0
    assert np.array_equal(data["obs"][first], np.stack([o for o, _ in expected]))
    assert list(data["z"][first]) == [1.0 if p == winner else -1.0 for _, p in expected]


def test_refit_refuses_bad_input_and_writes_nothing(source, tmp_path):
    with pytest.raises(ValueError, match="is the source network"):
        refit(source, source, FAST, progress=False)
    with pytest.raises(ValueError, match="--games"):
        refit(source, tmp_path / "x.pt", RefitOptions(games=3), progress=False)
    with pytest.raises(ValueError, match="--temperature"):
        refit(source, tmp_path / "x.pt", RefitOptions(temperature=0.0), progress=False)
    with pytest.raises(ValueError, match="held-out games kept no positions.*lower --explore-plies"):
        refit(source, tmp_path / "x.pt", RefitOptions(games=10, num_games=10, explore_plies=500), progress=False)
    with pytest.raises(FileNotFoundError, match="nor a pretrained name"):
        refit(tmp_path / "missing.pt", tmp_path / "x.pt", FAST, progress=False)
    # an output that cannot be written is refused before the self-play, not after it
    (tmp_path / "afile").write_text("")
    for out, message in [(tmp_path / "afile" / "x.pt", "the output's folder .* is a file"),
                         (tmp_path, "is a directory"), (3, "must be a file path")]:
        with pytest.raises(ValueError, match=message):
            refit(source, out, RefitOptions(games=10**6), progress=False)  # would take hours
    assert not (tmp_path / "x.pt").exists()
    out = subprocess.run([sys.executable, "-m", "agents.refit", str(source), str(tmp_path / "x.pt"), "--epochs", "0"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "--epochs" in out.stderr and not (tmp_path / "x.pt").exists()
