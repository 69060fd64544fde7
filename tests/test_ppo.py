"""The PPO baseline: credit assignment, masking, checkpoints, resume, learning."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.network import NetConfig, PolicyValueNet, masked_entropy, masked_logits  # noqa: E402
from agents.ppo import Args, PPOAgent, Trainer, load_checkpoint, parse_args, per_player_advantages, train  # noqa: E402
from odd_env import OddBatch  # noqa: E402
from odd_env.core import GameState, square  # noqa: E402


def test_per_player_advantages_on_a_hand_made_trajectory():
    # One game slot. Game 1: B, W, W (two steps of one turn), B, W passes, B passes (end, Black wins).
    # Game 2 starts: B plays, W plays a first stone; the rollout stops with White to act.
    V = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], dtype=np.float32)[:, None]
    actors = np.array([0, 1, 1, 0, 1, 0, 0, 1])[:, None]
    term = np.zeros((8, 1), dtype=bool)
    term[5] = True
    final = np.zeros((8, 1, 2), dtype=np.float32)
    final[5, 0] = (1.0, -1.0)
    rec = np.ones((8, 1), dtype=bool)
    lam = 0.5
    adv, ret = per_player_advantages(V, actors, rec, term, final, np.array([0.9]), np.array([1]), 1.0, lam)
    v = V[:, 0]
    a = {}
    a[5] = 1.0 - v[5]  # Black ends the game: its reward, no bootstrap
    a[3] = (v[5] - v[3]) + lam * a[5]  # Black's previous step bootstraps on Black's next decision
    a[0] = (v[3] - v[0]) + lam * a[3]
    a[4] = -1.0 - v[4]  # White's last step gets White's final reward though Black moved after it
    a[2] = (v[4] - v[2]) + lam * a[4]  # never on Black's value at t=3
    a[1] = (v[2] - v[1]) + lam * a[2]
    a[7] = 0.9 - v[7]  # White is to act after the rollout: its own value
    a[6] = -0.9 - v[6]  # Black is not: the negated value of the same position
    np.testing.assert_allclose(adv[:, 0], [a[t] for t in range(8)], rtol=1e-6)
    np.testing.assert_allclose(ret[:, 0], adv[:, 0] + v, rtol=1e-6)
    # White played by a snapshot: its steps are not samples, Black's are unchanged.
    rec_w = rec.copy()
    rec_w[actors == 1] = False
    adv2, _ = per_player_advantages(V, actors, rec_w, term, final, np.array([0.9]), np.array([1]), 1.0, lam)
    np.testing.assert_allclose(adv2[actors[:, 0] == 0, 0], adv[actors[:, 0] == 0, 0], rtol=1e-6)
    assert not adv2[actors[:, 0] == 1, 0].any()


def test_masked_distribution_never_samples_illegal_actions():
    g = square(5)
    engine = OddBatch("xodd", 5, 256)
    out = engine.reset()
    net = PolicyValueNet(NetConfig("xodd", 5, 5, 5, 12, channels=8, blocks=1))
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    for _ in range(30):
        mask = torch.from_numpy(out.action_mask.astype(bool))
        logits, _ = net(torch.from_numpy(out.observation))
        logits = logits * 50  # sharpen towards whatever the net likes, legal or not
        dist = torch.distributions.Categorical(logits=masked_logits(logits, mask))
        actions = dist.sample().numpy()
        assert mask.numpy()[np.arange(256), actions].all()
        ent = masked_entropy(logits, mask)
        assert torch.isfinite(ent).all() and (ent >= -1e-6).all()
        out = engine.step(actions if rng.random() < 0.5 else engine.random_actions(rng))
    assert g.num_actions == out.action_mask.shape[1]


def test_hex_kernels_see_exactly_the_six_neighbours():
    cfg = NetConfig("yodd", 3, 5, 5, 12, channels=4, blocks=1)
    net = PolicyValueNet(cfg)
    conv = net.stem
    weight = conv.weight * conv.kernel_mask
    assert (weight[..., 0, 0] == 0).all() and (weight[..., 2, 2] == 0).all()
    assert conv.kernel_mask.sum() == 7


def small_args(tmp_path, **kw):
    base = dict(game="xodd", board_size=4, num_games=32, rollout_steps=16, channels=16, blocks=1,
                minibatch_size=256, update_epochs=2, eval_every=0, eval_games=20, snapshot_every=2,
                checkpoint_every=2, run_dir=str(tmp_path / "run"), tensorboard=False, progress=False,
                threads=1, total_steps=32 * 16 * 4, seed=3)
    base.update(kw)
    return Args(**base)


def test_resume_continues_exactly(tmp_path):
    league = dict(scripted_opponents="greedy", scripted_prob=0.3)
    straight = train(small_args(tmp_path / "a", total_steps=32 * 16 * 4, checkpoint_every=100, **league))
    train(small_args(tmp_path / "b", total_steps=32 * 16 * 2, **league))
    resumed = train(small_args(tmp_path / "b", total_steps=32 * 16 * 4, resume=True, **league))
    assert resumed.global_step == straight.global_step == 2048 and resumed.update == 4
    for k, v in straight.net.state_dict().items():
        torch.testing.assert_close(resumed.net.state_dict()[k], v, rtol=0, atol=0)
    s_opt, r_opt = straight.optimizer.state_dict()["state"], resumed.optimizer.state_dict()["state"]
    for k in s_opt:
        torch.testing.assert_close(r_opt[k]["exp_avg"], s_opt[k]["exp_avg"], rtol=0, atol=0)
    assert len(resumed.pool.snapshots) == len(straight.pool.snapshots) == 2
    ckpt = load_checkpoint(tmp_path / "b" / "run" / "last.pt")
    assert ckpt["global_step"] == 2048 and ckpt["game"] == "xodd" and ckpt["board_size"] == 4
    assert ckpt["observation_version"] == 1 and ckpt["net_config"]["channels"] == 16


def test_bad_checkpoints_give_clear_errors(tmp_path):
    trainer = Trainer(small_args(tmp_path))
    path = trainer.save(tmp_path / "ok.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(tmp_path / "junk.pt")
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ValueError, match="corrupt"):
        agents.load("ppo", path=str(truncated))
    torch.save({"weights": 1}, tmp_path / "foreign.pt")
    with pytest.raises(ValueError, match="not an odd_env PPO checkpoint"):
        load_checkpoint(tmp_path / "foreign.pt")
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "missing.pt")
    other = Trainer(small_args(tmp_path, board_size=5))
    with pytest.raises(ValueError, match="xodd 4, not xodd 5"):
        other.restore(torch.load(path, weights_only=False))


def test_loaded_agent_plays_legally_in_arena_and_gym(tmp_path):
    import gymnasium

    from agents.arena import play_game

    trainer = Trainer(small_args(tmp_path))
    path = trainer.save(tmp_path / "p.pt")
    player = agents.load("ppo", path=str(path), greedy=False, seed=0)
    assert isinstance(player, PPOAgent)
    for seed in range(3):
        result = play_game(player, "random", "xodd", 4, seed=seed)
        assert result.winner in (0, 1)
    env = gymnasium.make("odd_env/Xodd-v0", board_size=4, opponent=player)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    with pytest.raises(ValueError, match="plays xodd 4"):
        player.act(GameState(square(5)))


def test_cli_generated_from_the_dataclass():
    args = parse_args(["--game", "yodd", "--board-size", "4", "--no-tensorboard", "--lr", "0.001"])
    assert (args.game, args.board_size, args.tensorboard, args.lr) == ("yodd", 4, False, 0.001)


def test_short_training_beats_the_untrained_network(tmp_path):
    args = small_args(tmp_path, total_steps=32 * 16 * 40, eval_games=200, lr=1e-3, seed=1)
    untrained = Trainer(args).evaluate(games=200)["win_rate/random"]
    trained = train(args).evaluate(games=200)["win_rate/random"]
    assert trained >= untrained + 0.4, (untrained, trained)
