"""The PPO baseline: credit assignment, masking, checkpoints, resume, learning."""

import csv
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.train.network import NetConfig, PolicyValueNet, masked_entropy, masked_logits  # noqa: E402
from agents.train.ppo import Args, PPOAgent, Trainer, load_checkpoint, parse_args, per_player_advantages, train  # noqa: E402
from odd_env import OddBatch  # noqa: E402
from odd_env import GameState, square  # noqa: E402


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


TIMING = {"rollout_seconds", "update_seconds", "steps_per_second", "train_minutes"}


def read_metrics(run_dir):
    with open(run_dir / "metrics.csv", newline="") as f:
        return [{k: v for k, v in row.items() if k not in TIMING} for row in csv.DictReader(f)]


def assert_same_state(a, b):
    for k, v in a.net.state_dict().items():
        torch.testing.assert_close(b.net.state_dict()[k], v, rtol=0, atol=0)
    sa, sb = a.optimizer.state_dict(), b.optimizer.state_dict()
    assert sa["param_groups"] == sb["param_groups"]
    for k, state in sa["state"].items():
        for name, value in state.items():
            torch.testing.assert_close(sb["state"][k][name], value, rtol=0, atol=0)
    assert len(a.pool.snapshots) == len(b.pool.snapshots)
    for x, y in zip(a.pool.snapshots, b.pool.snapshots):
        for k in x:
            torch.testing.assert_close(y[k], x[k], rtol=0, atol=0)
    assert np.array_equal(a.engine.get_states(), b.engine.get_states())
    assert (a.global_step, a.update, a.episodes) == (b.global_step, b.update, b.episodes)


def test_resume_between_snapshots_with_a_league_continues_exactly(tmp_path, monkeypatch):
    # Checkpoints every 5 updates, snapshots every 2: the run is killed after update 7,
    # its last checkpoint (update 5) falls between snapshots, with snapshot networks
    # already built and greedy opponents mid-game.
    run = dict(checkpoint_every=5, snapshot_every=2, eval_every=3, eval_games=4, eval_opponents="random,greedy",
               scripted_opponents="greedy", scripted_prob=0.3, num_games=16, rollout_steps=16,
               minibatch_size=128)
    updates = 16 * 16
    straight = train(small_args(tmp_path / "a", total_steps=updates * 9, **run))

    real_save = Trainer.save

    def killed_after_update_7(self, path):  # no save after update 5: the process died at update 7
        return real_save(self, path) if self.update <= 5 else None

    monkeypatch.setattr(Trainer, "save", killed_after_update_7)
    train(small_args(tmp_path / "b", total_steps=updates * 7, **run))
    monkeypatch.setattr(Trainer, "save", real_save)
    b_dir = tmp_path / "b" / "run"
    assert len(read_metrics(b_dir)) == 7 and load_checkpoint(b_dir / "last.pt")["update"] == 5

    resumed = train(small_args(tmp_path / "b", total_steps=updates * 9, resume=True, **run))
    assert resumed.update == straight.update == 9
    assert_same_state(straight, resumed)
    for x, y in zip(straight.scripted, resumed.scripted):
        assert x.get_state() == y.get_state()
    rows = read_metrics(b_dir)
    assert [r["global_step"] for r in rows] == [str(float(updates * u)) for u in range(1, 10)]
    assert rows == read_metrics(tmp_path / "a" / "run")
    assert any(r["win_rate_vs_pool"] not in ("", "nan") for r in rows[5:])  # snapshots played after the resume
    assert rows[5]["win_rate/greedy"] != ""  # update 6 evaluated, after the resume
    ckpt = load_checkpoint(b_dir / "last.pt")
    assert ckpt["global_step"] == updates * 9 and ckpt["game"] == "xodd" and ckpt["board_size"] == 4
    assert ckpt["observation_version"] == 1 and ckpt["net_config"]["channels"] == 16


def test_building_a_network_draws_nothing_from_torch(tmp_path):
    trainer = Trainer(small_args(tmp_path))
    trainer.pool.add(trainer.net)
    before = torch.get_rng_state()
    trainer.pool.net(0)
    PPOAgent(path=str(trainer.save(tmp_path / "p.pt")))
    assert torch.equal(torch.get_rng_state(), before)


def test_resume_applies_a_new_learning_rate_and_says_so(tmp_path, capsys):
    train(small_args(tmp_path, total_steps=32 * 16))
    resumed = train(small_args(tmp_path, total_steps=32 * 16 * 2, lr=2e-3, resume=True))
    assert "learning rate 0.002 (was 0.001)" in capsys.readouterr().out
    assert resumed.optimizer.param_groups[0]["lr"] == 2e-3
    assert load_checkpoint(tmp_path / "run" / "last.pt")["args"]["lr"] == 2e-3


def test_resume_refuses_changed_arguments_from_python(tmp_path):
    train(small_args(tmp_path, total_steps=32 * 16))
    with pytest.raises(ValueError, match=r"--num-games 16 \(the run has 32\).*--total-steps"):
        train(small_args(tmp_path, total_steps=32 * 16 * 2, num_games=16, resume=True))


def test_a_new_run_refuses_a_directory_holding_one(tmp_path):
    train(small_args(tmp_path, total_steps=32 * 16, milestones="0.0001"))
    run_dir = tmp_path / "run"
    assert (run_dir / "at-0.0001min.pt").exists()
    before = (run_dir / "last.pt").read_bytes()
    with pytest.raises(ValueError, match="already holds a run: add --resume .* or --overwrite"):
        train(small_args(tmp_path, total_steps=32 * 16))
    assert (run_dir / "last.pt").read_bytes() == before
    train(small_args(tmp_path, total_steps=32 * 16, seed=4, overwrite=True))
    assert not (run_dir / "at-0.0001min.pt").exists()
    assert load_checkpoint(run_dir / "last.pt")["args"]["seed"] == 4
    assert len(read_metrics(run_dir)) == 1


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
    with pytest.raises(ValueError, match="not an odd_env checkpoint"):
        load_checkpoint(tmp_path / "foreign.pt")
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="is for xodd 4, not xodd 5"):
        load_checkpoint(path, "xodd", 5)
    other = Trainer(small_args(tmp_path, board_size=5))
    with pytest.raises(ValueError, match="is for xodd 4, not xodd 5"):
        other.restore(load_checkpoint(path))
    wider = Trainer(small_args(tmp_path, channels=8))
    with pytest.raises(ValueError, match="differs from the run's"):
        wider.restore(load_checkpoint(path))


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


def test_ppo_options_are_checked_at_load(tmp_path):
    path = str(Trainer(small_args(tmp_path)).save(tmp_path / "p.pt"))
    bad = [(dict(threads=0), "ppo option threads must be an integer >= 1, got 0"),
           (dict(greedy="maybe"), "ppo option greedy must be true or false"),
           (dict(seed=-2), "ppo option seed must be an integer >= 0"),
           (dict(device="tpu"), "ppo option device must be cpu or cuda"),
           (dict(path=3), "ppo option path must be a checkpoint file name")]
    if not torch.cuda.is_available():
        bad.append((dict(device="cuda"), "ppo option device 'cuda' needs CUDA"))
    for options, message in bad:
        with pytest.raises(ValueError, match=re.escape(message)):
            agents.load("ppo", **{"path": path, **options})
    with pytest.raises(ValueError, match="exactly one of path="):
        agents.load("ppo")


def test_a_ppo_move_uses_its_own_thread_count_and_restores_the_process_one(tmp_path):
    player = agents.load("ppo", path=str(Trainer(small_args(tmp_path)).save(tmp_path / "p.pt")))
    seen = []
    player.network.register_forward_pre_hook(lambda *_: seen.append(torch.get_num_threads()))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        player.act(GameState(square(4)))
        assert seen == [1] and torch.get_num_threads() == 2
        unchanged = agents.load("ppo", path=player.path, threads=None)
        unchanged.network.register_forward_pre_hook(lambda *_: seen.append(torch.get_num_threads()))
        unchanged.act(GameState(square(4)))
        assert seen == [1, 2]
    finally:
        torch.set_num_threads(before)


def test_the_arena_refuses_a_network_for_another_board(tmp_path, capsys):
    from agents.arena import main as arena_main, round_robin

    path = str(Trainer(small_args(tmp_path)).save(tmp_path / "p.pt"))
    with pytest.raises(SystemExit) as exc:
        arena_main(["--board-size", "5", "--agents", f"ppo:path={path}", "random", "--no-progress",
                    "--out", str(tmp_path / "out")])
    assert exc.value.code == 2
    assert f"agent 'ppo:path={path}' plays xodd 4, not xodd 5" in capsys.readouterr().err
    with pytest.raises(ValueError, match="plays xodd 4, not yodd 4"):
        round_robin([agents.load("ppo", path=path), "random"], "yodd", 4, games_per_pair=2, progress=False)


def test_cli_generated_from_the_dataclass():
    args = parse_args(["--game", "yodd", "--board-size", "4", "--no-tensorboard", "--lr", "0.001"])
    assert (args.game, args.board_size, args.tensorboard, args.lr) == ("yodd", 4, False, 0.001)


def test_short_training_beats_the_untrained_network(tmp_path):
    args = small_args(tmp_path, total_steps=32 * 16 * 40, eval_games=200, lr=1e-3, seed=1)
    untrained = Trainer(args).evaluate(games=200)["win_rate/random"]
    trained = train(args).evaluate(games=200)["win_rate/random"]
    assert trained >= untrained + 0.4, (untrained, trained)


def test_evaluation_plays_with_the_trainers_thread_count(tmp_path, monkeypatch):
    trainer = Trainer(small_args(tmp_path, threads=2))
    torch.set_num_threads(1)  # the process's count, changed after the trainer set its own
    seen = []
    forward = PolicyValueNet.forward
    monkeypatch.setattr(PolicyValueNet, "forward",
                        lambda self, x: seen.append(torch.get_num_threads()) or forward(self, x))
    trainer.evaluate(games=2)
    assert seen and set(seen) == {2}  # --threads, not whatever the process had
    assert torch.get_num_threads() == 1  # and the process's count is back


def test_per_player_advantages_when_the_opponent_decides_mid_turn():
    # YINSH (player 0 = White): White chooses a ring and moves it, making rows for both
    # players; White removes its row and a ring, then Black removes its own row and a ring
    # in the middle of White's turn, then Black moves; that move empties the pool and the
    # game ends in a draw (0 to both). A new game: White places, Black places; the rollout
    # stops with White to act.
    V = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.15, 0.25], dtype=np.float32)[:, None]
    actors = np.array([0, 0, 0, 0, 1, 1, 1, 1, 0, 1])[:, None]
    term = np.zeros((10, 1), dtype=bool)
    term[7] = True
    final = np.zeros((10, 1, 2), dtype=np.float32)  # a draw: zeros for both
    rec = np.ones((10, 1), dtype=bool)
    lam = 0.5
    adv, ret = per_player_advantages(V, actors, rec, term, final, np.array([0.9]), np.array([0]), 1.0, lam)
    v = V[:, 0]
    a = {}
    a[7] = 0.0 - v[7]  # Black ends the game with its draw reward, no bootstrap
    a[6] = (v[7] - v[6]) + lam * a[7]
    a[5] = (v[6] - v[5]) + lam * a[6]
    a[4] = (v[5] - v[4]) + lam * a[5]  # Black's mid-turn row removal chains to Black's next decision
    a[3] = 0.0 - v[3]  # White's last decision of the game gets White's draw reward
    a[2] = (v[3] - v[2]) + lam * a[3]
    a[1] = (v[2] - v[1]) + lam * a[2]  # several White decisions in a row: one chain
    a[0] = (v[1] - v[0]) + lam * a[1]
    a[8] = 0.9 - v[8]  # White is to act after the rollout: its own value
    a[9] = -0.9 - v[9]  # Black is not: the negated value
    np.testing.assert_allclose(adv[:, 0], [a[t] for t in range(10)], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ret[:, 0], adv[:, 0] + v, rtol=1e-6, atol=1e-7)


def test_yinsh_trains_with_four_policy_planes_and_plays_from_its_checkpoint(tmp_path):
    from agents.arena import play_game
    from odd_env.game import make

    args = small_args(tmp_path, game="yinsh", board_size=0, variant="blitz", num_games=16, rollout_steps=16,
                      total_steps=16 * 16 * 3, scripted_opponents="random", scripted_prob=0.3,
                      eval_opponents="random", eval_every=3, eval_games=4, snapshot_every=1)
    trainer = train(args)
    game = make("yinsh", variant="blitz")
    assert trainer.game is game and trainer.config.point_planes == 4 and trainer.config.hexagonal
    assert trainer.config.num_actions == game.num_actions == 485 and trainer.config.onboard_plane == 4
    rows = read_metrics(tmp_path / "run")
    assert len(rows) == 3 and all(np.isfinite(float(r["policy_loss"])) for r in rows)
    assert 0.0 <= float(rows[-1]["win_rate/random"]) <= 1.0
    player = agents.load("ppo", path=str(tmp_path / "run" / "last.pt"), greedy=False, seed=1)
    assert player.game is game
    result = play_game(player, "random", game, seed=2)
    assert result.game == "yinsh" and result.variant == "blitz" and result.plies > 10
    with pytest.raises(ValueError, match="plays yinsh blitz, not yinsh"):
        player.act(make("yinsh").new_state())


def test_without_augment_no_sample_is_mapped_and_nothing_is_drawn(tmp_path, monkeypatch):
    trainer = Trainer(small_args(tmp_path))
    assert not trainer.args.augment  # the default
    monkeypatch.setattr(Trainer, "augment", lambda self, batch: pytest.fail("augment() ran without --augment"))
    batch = trainer.collect()
    before = trainer.np_rng.bit_generator.state
    trainer.learn(batch)
    assert trainer.np_rng.bit_generator.state == before


def test_augment_with_the_identity_alone_is_the_plain_update(tmp_path, monkeypatch):
    import agents.train.ppo as ppo

    plain, augmented = Trainer(small_args(tmp_path / "a")), Trainer(small_args(tmp_path / "b", augment=True))
    group = ppo.board_symmetries
    monkeypatch.setattr(ppo, "board_symmetries", lambda game: group(game)[:1])
    torch.manual_seed(9)  # the two trainers share torch's generator: the same draws for both
    batch = plain.collect()
    torch.manual_seed(9)
    again = augmented.collect()
    mapped = augmented.augment(again)
    for k in ("obs", "mask", "action", "adv", "ret"):
        assert np.array_equal(mapped[k], batch[k])
    # Recomputed with the network of the rollout: the rollout's own log-probabilities and values.
    np.testing.assert_allclose(mapped["logp"], batch["logp"], rtol=0, atol=1e-5)
    np.testing.assert_allclose(mapped["value"], batch["value"], rtol=0, atol=1e-5)
    torch.manual_seed(10)
    plain.learn(batch)
    torch.manual_seed(10)
    augmented.learn(again)
    for k, v in plain.net.state_dict().items():
        torch.testing.assert_close(augmented.net.state_dict()[k], v, rtol=0, atol=1e-5)


@pytest.mark.parametrize("game,size,variant", [("yodd", 3, ""), ("xodd", 4, ""), ("yinsh", 0, "blitz")])
def test_augmented_samples_are_legal_positions_with_their_own_masks(tmp_path, game, size, variant):
    trainer = Trainer(small_args(tmp_path, game=game, board_size=size, variant=variant, augment=True,
                                 num_games=16, rollout_steps=8, eval_opponents="random"))
    batch = trainer.collect()
    mapped = trainer.augment(batch)
    moved = 0
    for obs, mask, action, before in zip(mapped["obs"], mapped["mask"], mapped["action"], batch["obs"]):
        state = trainer.game.from_observation(obs)  # a position the rules accept...
        assert np.array_equal(state.legal_action_mask().astype(bool), mask)  # ...with the mapped mask
        assert mask[action]
        moved += not np.array_equal(obs, before)
    assert moved > len(mapped["obs"]) // 2
    assert np.isfinite(mapped["logp"]).all() and (mapped["logp"] <= 0).all()
    for k in ("adv", "ret"):
        assert np.array_equal(mapped[k], batch[k])
    metrics = trainer.learn(batch)
    assert all(np.isfinite(metrics[k]) for k in ("policy_loss", "value_loss", "entropy"))


def test_resume_with_augment_continues_exactly(tmp_path, monkeypatch):
    run = dict(game="yodd", board_size=3, augment=True, checkpoint_every=2, snapshot_every=2, num_games=16,
               rollout_steps=16, minibatch_size=128, eval_opponents="random", eval_games=2)
    steps = 16 * 16
    straight = train(small_args(tmp_path / "a", total_steps=steps * 4, **run))
    real_save = Trainer.save
    monkeypatch.setattr(Trainer, "save", lambda self, path: real_save(self, path) if self.update <= 2 else None)
    train(small_args(tmp_path / "b", total_steps=steps * 3, **run))
    monkeypatch.setattr(Trainer, "save", real_save)
    resumed = train(small_args(tmp_path / "b", total_steps=steps * 4, resume=True, **run))
    assert resumed.update == straight.update == 4
    assert_same_state(straight, resumed)
    assert straight.np_rng.bit_generator.state == resumed.np_rng.bit_generator.state
    plain = train(small_args(tmp_path / "c", total_steps=steps * 4, **{**run, "augment": False}))
    assert any(not torch.equal(v, straight.net.state_dict()[k]) for k, v in plain.net.state_dict().items())


@pytest.mark.parametrize("extra", [1, 2, 513])
def test_an_update_whose_sample_count_leaves_a_small_remainder_stays_finite(tmp_path, extra):
    # YINSH rollouts record a varying number of samples; a last minibatch of one sample had no
    # standard deviation and its NaN advantages turned every weight into NaN.
    trainer = Trainer(small_args(tmp_path, minibatch_size=64, num_games=16, rollout_steps=8))
    batch = trainer.collect()
    n = 64 + extra
    reps = -(-n // len(batch["action"]))
    batch = {k: (np.concatenate([v] * reps)[:n] if isinstance(v, np.ndarray) else v) for k, v in batch.items()}
    batch["adv"] = np.random.default_rng(0).normal(size=n).astype(np.float32)
    metrics = trainer.learn(batch)
    assert metrics["samples"] == n
    assert all(np.isfinite(metrics[k]) for k in ("policy_loss", "value_loss", "entropy", "approx_kl"))
    assert all(torch.isfinite(p).all() for p in trainer.net.parameters())


def test_init_from_copies_a_network_of_another_board_and_refuses_misfits(tmp_path):
    source = Trainer(small_args(tmp_path / "a", board_size=4))
    path = source.save(tmp_path / "x4.pt")
    bigger = Trainer(small_args(tmp_path / "b", board_size=5, init_from=str(path)))
    theirs, mine = source.net.state_dict(), bigger.net.state_dict()
    for k, v in theirs.items():
        if k.startswith("value_fc"):  # sized by the board: starts as a fresh run's would
            continue
        else:
            torch.testing.assert_close(mine[k], v, rtol=0, atol=0)
    fresh = Trainer(small_args(tmp_path / "c", board_size=5)).net.state_dict()
    for k in ("value_fc.weight", "value_fc.bias"):
        torch.testing.assert_close(mine[k], fresh[k], rtol=0, atol=0)
    # The initialised run trains and its checkpoint records where it started.
    train(small_args(tmp_path / "d", board_size=5, init_from=str(path), total_steps=32 * 16))
    started = load_checkpoint(tmp_path / "d" / "run" / "last.pt")
    assert started["args"]["init_from"] == str(path)
    assert started["init_sha256"] == load_checkpoint(path)["sha256"]  # which file it was, should it change
    with pytest.raises(ValueError, match="give --channels 16 --blocks 1"):
        Trainer(small_args(tmp_path / "e", channels=8, init_from=str(path)))
    with pytest.raises(ValueError, match="plays xodd, this run yodd"):
        Trainer(small_args(tmp_path / "f", game="yodd", board_size=3, init_from=str(path)))
    with pytest.raises(FileNotFoundError, match="nor a pretrained name"):
        Trainer(small_args(tmp_path / "g", init_from=str(tmp_path / "missing.pt")))


def test_an_arena_journal_refuses_a_checkpoint_retrained_at_the_same_path(tmp_path):
    from agents.arena import JournalError, round_robin

    path = tmp_path / "net.pt"
    Trainer(small_args(tmp_path / "a")).save(path)
    specs = [f"ppo:path={path}", f"mcts:network={path},simulations=4"]
    assert agents.load(specs[0]).network_sha256 == agents.load(specs[1]).network_sha256 == \
        load_checkpoint(path)["sha256"]
    journal = tmp_path / "journal.jsonl"
    round_robin(specs + ["random"], "xodd", 4, games_per_pair=2, seed=0, progress=False, journal=journal)
    text = journal.read_text()
    again = round_robin(specs + ["random"], "xodd", 4, games_per_pair=2, seed=0, progress=False, journal=journal,
                        resume=True)
    assert again.resumed == 6
    Trainer(small_args(tmp_path / "b", seed=4)).save(path)  # other weights, same path and spec
    with pytest.raises(JournalError, match=r"the network file of ppo:path=.*, mcts:network=.* is not the one"):
        round_robin(specs + ["random"], "xodd", 4, games_per_pair=2, seed=0, progress=False, journal=journal,
                    resume=True)
    assert journal.read_text() == text


# ------------------------------------------------------------ failures change nothing


def test_a_trainer_that_fails_to_build_leaves_the_process_as_it_was(tmp_path):
    import random

    with pytest.raises(ValueError, match="Trainer takes an agents.train.ppo.Args"):
        Trainer({"game": "xodd"})
    before = (random.getstate(), np.random.get_state()[1].copy(), torch.get_rng_state().clone(),
              torch.get_num_threads())
    with pytest.raises(ValueError, match="--init-from xodd7: its network has"):  # read after seeding
        Trainer(small_args(tmp_path, init_from="xodd7", threads=before[3] + 1))
    assert random.getstate() == before[0] and np.array_equal(np.random.get_state()[1], before[1])
    assert torch.equal(torch.get_rng_state(), before[2]) and torch.get_num_threads() == before[3]


def test_a_failed_restore_leaves_the_trainer_as_it_was(tmp_path):
    import random

    trained = Trainer(small_args(tmp_path))
    path = trained.save(tmp_path / "a.pt")
    fresh = Trainer(small_args(tmp_path, run_dir=str(tmp_path / "b")))
    weights = {k: v.clone() for k, v in fresh.net.state_dict().items()}
    states, rng = fresh.engine.get_states(), random.getstate()

    def same_as_before():
        assert all(torch.equal(weights[k], v) for k, v in fresh.net.state_dict().items())
        assert np.array_equal(fresh.engine.get_states(), states) and random.getstate() == rng
        assert (fresh.global_step, fresh.update, fresh.train_seconds) == (0, 0, 0.0)

    for break_it, message in [(lambda c: c["rng"].pop("python"), "KeyError: 'python'"),  # late: after the weights
                              (lambda c: c.update(train_seconds="abc"), "train_seconds must be a finite number"),
                              (lambda c: c.update(train_seconds=float("nan")), "train_seconds must be"),
                              (lambda c: c["args"].update(seed=99), "--seed 3 \\(the run has 99\\)")]:
        ckpt = load_checkpoint(path)
        ckpt.update(global_step=100)
        break_it(ckpt)
        with pytest.raises(ValueError, match=message):
            fresh.restore(ckpt)
        same_as_before()
    fresh.restore(load_checkpoint(path))  # the whole checkpoint still restores
    assert fresh.global_step == trained.global_step


def test_network_configs_and_inputs_are_checked():
    for build, message in [(lambda: NetConfig.for_game("xodd", channels=0), "channels must be an integer >= 1"),
                           (lambda: NetConfig.for_game("xodd", blocks=-1), "blocks must be an integer >= 0"),
                           (lambda: NetConfig("nope", 5, 5, 5, 12), "game must be one of"),
                           (lambda: NetConfig("xodd", 5, 7, 7, 12), r"xodd 5 has .* \(5, 5, 12, 2, 3\), the config"),
                           (lambda: NetConfig("xodd", 5, 5, 5, 12, onboard_plane=0), "the config says"),
                           (lambda: NetConfig("xodd", 5, 5, 5, 12, hexagonal="no"), "hexagonal must be")]:
        with pytest.raises(ValueError, match=message):
            build()
    net = PolicyValueNet(NetConfig.for_game("xodd", channels=8, blocks=1))
    for planes, message in [(np.zeros((1, 12, 9, 9)), "takes a torch tensor .* got ndarray"),
                            (torch.zeros(12, 9, 9), r"takes planes \(B, 12, 9, 9\), got \(12, 9, 9\)"),
                            (torch.zeros(1, 12, 7, 7), r"got \(1, 12, 7, 7\)")]:  # another board: no matmul error
        with pytest.raises(ValueError, match=message):
            net(planes)
    assert net(torch.zeros(2, 12, 9, 9))[0].shape == (2, 163)
