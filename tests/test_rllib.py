"""Ray RLlib: the env against the game, the RLModule's masks, the league, training on Ray and on two nodes.

Skipped where the ``rllib`` extra is not installed. The two Ray tests are
bounded: Xodd 4, an 8-channel one-block network, 256-step batches.
"""

import math
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

import gymnasium  # noqa: E402

import agents  # noqa: E402
from agents.train import rllib  # noqa: E402
from agents.arena import play_game  # noqa: E402
from agents.train.network import NetConfig, PolicyValueNet  # noqa: E402
from agents.train.rllib_train import Args, build_config, main, parse_args, train  # noqa: E402
from odd_env import xodd_v0, yodd_v0  # noqa: E402
from odd_env.game import make as make_game  # noqa: E402


# ------------------------------------------------------------------ the env
@pytest.mark.parametrize("game,size,aec", [("xodd", 4, xodd_v0), ("yodd", 3, yodd_v0)])
def test_env_plays_the_pettingzoo_game_one_decision_per_step(game, size, aec):
    env = rllib.GameMultiAgentEnv({"game": game, "board_size": size})
    ref = aec.raw_env(board_size=size)
    rng = np.random.default_rng(7)
    same_agent_twice = 0
    for episode in range(15):
        obs, _ = env.reset(seed=episode)
        ref.reset()
        while True:
            (agent, o), = obs.items()  # only the player to decide observes
            assert agent == ref.agent_selection
            expected = ref.observe(agent)
            assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
            np.testing.assert_array_equal(o["observations"], expected["observation"].transpose(1, 2, 0))
            np.testing.assert_array_equal(o["action_mask"], expected["action_mask"])
            assert env.observation_spaces[agent].contains(o)
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rewards, terminated, truncated, _ = env.step({agent: action})
            ref.step(action)
            assert not truncated["__all__"]
            if terminated["__all__"]:
                assert set(obs) == set(rewards) == set(ref.possible_agents)
                assert rewards == {a: ref.rewards[a] for a in ref.possible_agents}
                assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
                assert all(terminated[a] for a in ref.possible_agents)
                for a in obs:
                    assert not obs[a]["action_mask"].any()
                break
            assert agent in rewards and rewards[agent] == 0.0  # RLlib needs it when the actor decides again
            same_agent_twice += agent in obs
    assert same_agent_twice > 0  # both steps of a turn were exercised


def test_env_refuses_bad_config_and_the_wrong_agent():
    with pytest.raises(ValueError, match="unknown env_config keys"):
        rllib.GameMultiAgentEnv({"game": "xodd", "size": 4})
    with pytest.raises(ValueError, match="unknown game"):
        rllib.GameMultiAgentEnv({"game": "chess"})
    with pytest.raises(ValueError, match="illegal_action must be"):
        rllib.GameMultiAgentEnv({"game": "xodd", "illegal_action": "ignore"})
    env = rllib.GameMultiAgentEnv({"game": "xodd", "board_size": 4})
    obs, _ = env.reset()
    assert list(obs) == ["black_0"]
    with pytest.raises(ValueError, match="black_0 is to act"):
        env.step({"white_0": 0})
    with pytest.raises(ValueError, match="black_0"):
        env.step({"black_0": env.game.num_actions})  # outside the action space: always an error


def _first_illegal(game, size, mode):
    env = rllib.GameMultiAgentEnv({"game": game, "board_size": size, "illegal_action": mode})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    return env, agent, int(np.flatnonzero(o["action_mask"] == 0)[0])


def test_a_masked_action_loses_the_game_or_raises():
    env, agent, illegal = _first_illegal("yodd", 3, "lose")  # an off-board cell of the hexagon's array
    before = env.state.copy()
    obs, rewards, terminated, truncated, infos = env.step({agent: illegal})
    assert env.state == before  # the position is unchanged
    assert rewards == {"black_0": -1.0, "white_0": 0.0} and terminated["__all__"] and not truncated["__all__"]
    assert "off the board" in infos["black_0"]["illegal_action"]
    assert set(obs) == {"black_0", "white_0"} and not any(o["action_mask"].any() for o in obs.values())
    with pytest.raises(ValueError, match="game is over"):
        env.step({agent: 0})
    env, agent, illegal = _first_illegal("yodd", 3, "raise")
    before = env.state.copy()
    with pytest.raises(ValueError, match="black_0.*off the board"):
        env.step({agent: illegal})
    assert env.state == before


def test_registered_env_creator_builds_the_game_by_name_and_size():
    from ray.tune.registry import ENV_CREATOR, _global_registry

    names = rllib.register_envs()
    assert {"odd_env/xodd", "odd_env/yodd"} <= set(names)
    env = _global_registry.get(ENV_CREATOR, "odd_env/yodd")({"board_size": 3})
    assert env.game is make_game("yodd", 3)
    with pytest.raises(ValueError, match="allowed"):
        _global_registry.get(ENV_CREATOR, "odd_env/yodd")({"board": 3})


def test_rllibs_env_check_passes_though_it_steps_unmasked_random_actions():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = rllib.GameMultiAgentEnv({"game": "yodd", "board_size": 3})  # most actions are off the board
    for _ in range(30):
        check_multiagent_environments(env)


# --------------------------------------------------------------- the module
def _observations(game, size, n, seed=0):
    env = rllib.GameMultiAgentEnv({"game": game, "board_size": size})
    rng = np.random.default_rng(seed)
    out = []
    obs, _ = env.reset()
    while len(out) < n:
        (agent, o), = obs.items()
        out.append(o)
        obs, _, terminated, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if terminated["__all__"]:
            obs, _ = env.reset()
    return {k: torch.from_numpy(np.stack([o[k] for o in out])) for k in ("observations", "action_mask")}


def test_module_is_the_baseline_network_with_masked_logits():
    from ray.rllib.core.columns import Columns

    bare = rllib.module_spec("yodd", 3, channels=8, blocks=0).build()  # no residual block, as agents.train.ppo allows
    assert bare.net.config.blocks == 0 and len(bare.net.blocks) == 0
    module = rllib.module_spec("yodd", 3, channels=8, blocks=1).build()
    assert isinstance(module.net, PolicyValueNet)
    assert module.net.config == NetConfig.for_game(make_game("yodd", 3), channels=8, blocks=1, value_hidden=64)
    assert module.net.config.hexagonal
    batch = {Columns.OBS: _observations("yodd", 3, 200)}
    mask = batch[Columns.OBS]["action_mask"].bool()
    with torch.no_grad():
        for p in module.net.parameters():  # sharpen the policy towards whatever it likes, legal or not
            p.mul_(20)
        logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
        assert (logits[~mask] == torch.finfo(logits.dtype).min).all()
        dist = module.get_exploration_action_dist_cls().from_logits(logits)
        for _ in range(20):
            actions = dist.sample()
            assert mask[torch.arange(len(actions)), actions].all()
        greedy = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].argmax(-1)
        assert mask[torch.arange(len(greedy)), greedy].all()
        _, value = module.net(batch[Columns.OBS]["observations"].permute(0, 3, 1, 2))
        torch.testing.assert_close(module.compute_values(batch), value)
        train_out = module.forward_train(batch)
        torch.testing.assert_close(module.compute_values(batch, train_out[Columns.EMBEDDINGS]), value)


def test_rllibs_own_action_masking_module_reads_the_env_unmodified():
    # The env speaks RLlib's conventions (key "observations", float32, channels last, float mask),
    # so RLlib's example module over its default CNN encoder runs on it without glue.
    from ray.rllib.core.columns import Columns
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    game = make_game("xodd", 4)
    module = ActionMaskingTorchRLModule(
        observation_space=rllib.observation_space(game), action_space=gymnasium.spaces.Discrete(game.num_actions),
        model_config={"conv_filters": [[8, [3, 3], 1]], "head_fcnet_hiddens": [16]})
    obs = _observations("xodd", 4, 50)
    with torch.no_grad():
        logits = module.forward_exploration({Columns.OBS: dict(obs)})[Columns.ACTION_DIST_INPUTS]
        values = module.compute_values({Columns.OBS: dict(obs)})
    assert logits.shape == (50, game.num_actions) and values.shape == (50,)
    probs = torch.softmax(logits, -1)
    assert (probs[obs["action_mask"] == 0] == 0).all()


def test_module_refuses_another_games_spaces():
    spec = rllib.module_spec("xodd", 4)
    spec.observation_space = rllib.observation_space(make_game("xodd", 5))
    with pytest.raises(ValueError, match="expects observations"):
        spec.build()


# --------------------------------------------------------------- the league
class _Episode:
    def __init__(self, i):
        self.id_ = f"{i:032x}"


def test_league_mapping_seats_main_on_both_colours_against_the_league():
    agents_ = ("black_0", "white_0")
    assert rllib.LeagueMapping(agents_)("white_0", _Episode(1)) == "main"  # no league yet: pure self-play
    mapping = rllib.LeagueMapping(agents_, ("snapshot_0", "snapshot_1"), latest_prob=0.25)
    seats = np.zeros(2)
    opponents: dict[str, int] = {}
    for i in range(4000):
        ep = _Episode(i)
        black, white = mapping("black_0", ep), mapping("white_0", ep)
        assert mapping("black_0", ep) == black  # the same answer every time it is asked
        assert "main" in (black, white)
        seats[mapping.learner_seat(ep)] += 1
        other = white if mapping.learner_seat(ep) == 0 else black
        opponents[other] = opponents.get(other, 0) + 1
    assert abs(seats[0] - seats[1]) < 300
    assert set(opponents) == {"main", "snapshot_0", "snapshot_1"}
    assert abs(opponents["main"] / 4000 - 0.25) < 0.04
    assert abs(opponents["snapshot_0"] - opponents["snapshot_1"]) < 300
    with pytest.raises(ValueError, match="latest_prob"):
        rllib.LeagueMapping(agents_, (), 1.5)


def test_command_line_rejects_bad_options_with_status_2(capsys):
    for argv in (["--game", "chess"], ["--iterations", "0"], ["--eval-opponents", "nobody"],
                 ["--minibatch-size", "8192"], ["--lr", "nan"], ["--gamma", "7"], ["--seed", "-1"],
                 ["--eval-opponents", "mcts:simulations=-5"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    assert "error" in capsys.readouterr().err


def test_run_directories_are_resumed_or_refused_before_ray_starts(tmp_path, capsys):
    import json
    from dataclasses import asdict

    run = tmp_path / "run"

    def refused(argv, message):
        with pytest.raises(SystemExit) as exc:
            main(["--run-dir", str(run), *argv])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert message in err, err

    refused(["--resume"], "--resume: no checkpoint in")
    refused(["--resume", "--overwrite"], "not both")
    (run / "checkpoint").mkdir(parents=True)
    saved = asdict(tiny_args(tmp_path))
    (run / "args.json").write_text(json.dumps(saved))
    refused([], "already holds a run: add --resume to continue it, or --overwrite")
    (run / "checkpoint" / "rllib_checkpoint.json").write_text("{}")  # RLlib's files without the league's
    refused(["--resume"], "has no league.json")
    (run / "checkpoint" / "league.json").write_text("{not json")
    refused(["--resume"], "league.json is corrupt")
    (run / "checkpoint" / "league.json").write_text(json.dumps(
        {"iteration": 2, "env_steps": 512, "league": {"iterations": 2, "snapshots_taken": 2, "snapshots": ["snapshot_0"]}}))
    refused(["--resume", "--channels", "16"], "--channels 16 (the run has 8) cannot change in a resumed run")
    assert not ray.is_initialized()
    # The saved arguments fill in what is not given; the mutable ones may change.
    args = parse_args(["--run-dir", str(run), "--resume", "--iterations", "5", "--eval-games", "2"])
    assert (args.iterations, args.eval_games, args.channels, args.board_size, args.resume) == (5, 2, 8, 4, True)
    league = rllib.LeagueCallback(None, ("black_0", "white_0"), pool_size=1)
    with pytest.raises(ValueError, match=r"has slots \['snapshot_0'\], not \['snapshot_3'\]"):
        league.set_state(None, {"iterations": 2, "snapshots_taken": 2, "snapshots": ["snapshot_3"]})


# ---------------------------------------------------------- training on Ray
def tiny_args(tmp_path, **kw):
    base = dict(game="xodd", board_size=4, iterations=2, env_runners=2, channels=8, blocks=1,
                train_batch_size=256, minibatch_size=128, num_epochs=1, snapshot_every=1, pool_size=1,
                eval_every=2, eval_games=4, checkpoint_every=2, run_dir=str(tmp_path / "run"),
                tensorboard=False, seed=3)
    base.update(kw)
    return Args(**base)


@pytest.fixture
def local_ray():
    ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_two_iterations_on_local_ray_give_a_checkpoint_that_plays(tmp_path, local_ray):
    args = tiny_args(tmp_path)
    row = train(args)
    assert row["iteration"] == 2 and row["env_steps"] >= args.train_batch_size
    # No game was lost on a masked action, no env step failed, no env runner died.
    assert row["illegal_action_rate"] == 0.0
    assert row.get("env_step_failures", 0) == 0 and row.get("env_runner_restarts", 0) == 0
    for key in ("policy_loss", "value_loss", "entropy", "total_loss"):
        assert math.isfinite(row[key]), key
    assert row["entropy"] > 0
    assert row["league_size"] == 1  # snapshot_0 added, then overwritten (pool_size 1)
    assert 0.0 <= row["win_rate/random"] <= 1.0 and 0.0 <= row["win_rate/greedy"] <= 1.0
    assert (tmp_path / "run" / "metrics.csv").read_text().count("\n") == 3

    player = agents.load("rllib", path=str(tmp_path / "run" / "checkpoint"))
    from agents.train.ppo import PPOAgent

    assert isinstance(player, PPOAgent) and isinstance(player.network, PolicyValueNet)
    assert player.label == f"rllib:path={tmp_path / 'run' / 'checkpoint'}"  # the spec that loads it again
    assert player.network.config.channels == 8
    result = play_game(player, "greedy", "xodd", 4, seed=0)  # the arena raises on an illegal action
    assert result.winner in (0, 1, None)
    env = gymnasium.make("odd_env/Xodd-v0", board_size=4, opponent=player, play_as="black")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward in (-1.0, 0.0, 1.0)


def test_a_resumed_run_rebuilds_the_league_and_continues(tmp_path, local_ray):
    import json

    from agents.train.rllib_train import _save

    args = tiny_args(tmp_path, env_runners=0, eval_every=0, pool_size=2)
    algo = build_config(args).build_algo()
    league = next(cb for cb in algo.callbacks if isinstance(cb, rllib.LeagueCallback))
    try:
        for _ in range(3):
            algo.train()
        ckpt = tmp_path / "run" / "checkpoint"
        _save(algo, league, ckpt, 3, 768)
        before = algo.learner_group.get_weights()
    finally:
        algo.stop()
    assert league.get_state() == {"iterations": 3, "snapshots_taken": 3, "snapshots": ["snapshot_0", "snapshot_1"]}
    # A new algorithm, the league's slots first, then RLlib's restore: every module's weights come back.
    algo = build_config(args).build_algo()
    league = next(cb for cb in algo.callbacks if isinstance(cb, rllib.LeagueCallback))
    try:
        league.set_state(algo, json.loads((ckpt / "league.json").read_text())["league"])
        algo.restore_from_path(str(ckpt))
        after = algo.learner_group.get_weights()
        assert algo.iteration == 3 and league.snapshots_taken == 3
    finally:
        algo.stop()
    assert set(after) == set(before) == {"main", "snapshot_0", "snapshot_1"}
    for module in before:
        for name, w in before[module].items():
            np.testing.assert_array_equal(np.asarray(after[module][name]), np.asarray(w))
    first = next(iter(before["main"]))  # snapshot_0 holds main (iteration 3), snapshot_1 iteration 2's
    np.testing.assert_array_equal(np.asarray(before["snapshot_0"][first]), np.asarray(before["main"][first]))
    assert not np.array_equal(np.asarray(before["snapshot_1"][first]), np.asarray(before["main"][first]))
    # The command's way: three iterations, then --resume to four.
    run_args = tiny_args(tmp_path, run_dir=str(tmp_path / "cli"), iterations=3, eval_every=0, checkpoint_every=1)
    train(run_args)
    row = train(parse_args(["--run-dir", run_args.run_dir, "--resume", "--iterations", "4"]))
    assert row["iteration"] == 4 and row["league_size"] == 1
    assert json.loads((tmp_path / "cli" / "checkpoint" / "league.json").read_text())["iteration"] == 4
    assert (tmp_path / "cli" / "metrics.csv").read_text().count("\n") == 5  # header + 4 iterations
    with pytest.raises(ValueError, match=r"is at iteration 4 already \(--iterations 4\): raise --iterations"):
        train(parse_args(["--run-dir", run_args.run_dir, "--resume", "--iterations", "4"]))  # before Ray builds


def test_one_iteration_on_a_two_node_cluster_places_env_runners_on_both(tmp_path):
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        node_ids = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert len(node_ids) == 2
        algo = build_config(tiny_args(tmp_path, eval_every=0)).build_algo()
        try:
            runner_nodes = algo.env_runner_group.foreach_env_runner(
                lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False)
            assert sorted(runner_nodes) == sorted(node_ids)  # one env runner (one CPU) on each node
            result = algo.train()
            assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
            assert math.isfinite(result["learners"]["main"]["total_loss"])
        finally:
            algo.stop()
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_importing_agents_does_not_import_ray():
    import subprocess

    code = "import agents, sys; assert 'ray' not in sys.modules and 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
