"""Network-guided MCTS: agents.load("mcts", network=PATH): priors and values from a PPO network."""

import pickle
import re
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.arena import play_game, round_robin  # noqa: E402
from agents.players.mcts import MCTSAgent  # noqa: E402
from agents.train.ppo import Args, PPOAgent, Trainer  # noqa: E402
from odd_env.game import make  # noqa: E402


def _checkpoint(tmp_path_factory, game, size=0, variant="", general=False):
    path = tmp_path_factory.mktemp(f"{game}{size}{variant}") / "net.pt"
    args = Args(game=game, board_size=size, variant=variant, num_games=4, rollout_steps=4, channels=8, blocks=1,
                eval_opponents="random", run_dir=str(path.parent), tensorboard=False, progress=False, seed=2,
                general=general)
    return str(Trainer(args).save(path))


@pytest.fixture(scope="module")
def xodd4(tmp_path_factory):
    return _checkpoint(tmp_path_factory, "xodd", 4)


@pytest.mark.parametrize("game,size,variant", [("xodd", 4, ""), ("yodd", 3, ""), ("yinsh", 0, "blitz")])
def test_network_guided_search_plays_legal_games_without_rollouts(tmp_path_factory, monkeypatch, game, size,
                                                                   variant):
    path = _checkpoint(tmp_path_factory, game, size, variant)
    monkeypatch.setattr(MCTSAgent, "_evaluate", lambda self, node: pytest.fail("a rollout ran"))
    player = agents.load("mcts", network=path, simulations=12, seed=1)
    assert player.game is make(game, size or None, variant)
    result = play_game(player, "random", player.game, seed=3)  # the arena checks every move's legality
    assert result.plies > 4


def test_the_priors_are_the_networks_policy(xodd4):
    network = PPOAgent(path=xodd4)
    state = make("xodd", 4).new_state()
    state.apply(int(state.legal_actions()[5]))
    probs, _ = network.policy_value(state)
    # One simulation expands the child of highest prior (all children unvisited: PUCT ranks by prior).
    one = agents.load("mcts", network=xodd4, simulations=1, seed=0)
    assert one.act(state) == int(np.argmax(probs))
    assert one.root_visits() == {int(np.argmax(probs)): 1} | {
        int(a): 0 for a in state.legal_actions() if a != np.argmax(probs)}


def test_the_tree_is_reused_for_the_next_position(xodd4):
    state = make("xodd", 4).new_state()
    carried_over = []
    for reuse in (True, False):
        player = agents.load("mcts", network=xodd4, simulations=160, seed=0, reuse_tree=reuse)
        s = state.copy()
        action = player.act(s)
        visits = player.root_visits()[action]
        s.apply(action)  # Black's one-stone first turn: White decides next, a child of the root
        player.act(s)
        # The child was reached `visits` times: once expanded, then searched through visits - 1 times.
        carried = visits - 1 if reuse else 0
        assert sum(player.root_visits().values()) == carried + player.last_simulations == carried + 160
        carried_over.append(carried)
    assert carried_over[0] >= 2


def test_a_position_of_another_game_is_refused(xodd4):
    player = agents.load("mcts", network=xodd4, simulations=4)
    with pytest.raises(ValueError, match=re.escape(f"mcts: the network {xodd4!r} plays xodd 4, not xodd 5")):
        player.act(make("xodd", 5).new_state())
    with pytest.raises(ValueError, match="plays xodd 4, not yodd 4"):
        round_robin([player, "random"], "yodd", 4, games_per_pair=2, progress=False)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_size_general_network_plays_every_size_of_its_game(tmp_path_factory, compiled):
    path = _checkpoint(tmp_path_factory, "xodd", 4, general=True)  # issue 40: no board of its own
    player = agents.load("mcts", network=path, simulations=12, seed=1, compiled=compiled, symmetries=2)
    assert player.game is None and player.network == path
    for size in (3, 5, 7):
        state = make("xodd", size).new_state()
        for _ in range(6):  # and again from the reused tree
            if state.is_terminal:
                break
            action = player.act(state)
            assert state.legal_action_mask()[action], (size, action)
            assert player.last_simulations == 12 or len(state.legal_actions()) == 1
            state.apply(action)
    copy = pickle.loads(pickle.dumps(player))  # what the arena sends to its worker processes
    assert copy.game is None and copy.act(make("xodd", 6).new_state()) >= 0
    assert play_game(f"mcts:network={path},simulations=8,compiled={compiled}", "random", make("xodd", 4),
                     seed=0).plies > 0  # the spec, through the arena
    for other in (make("yodd", 4), make("yinsh", variant="blitz")):
        with pytest.raises(ValueError, match=re.escape(f"mcts: the network {path!r} cannot play {other.label}: its "
                                                       f"size-general network plays xodd (any size), not {other.label}")):
            player.act(other.new_state())
    with pytest.raises(ValueError, match="its size-general network plays xodd \\(any size\\), not yodd 4"):
        round_robin([player, "random"], "yodd", 4, games_per_pair=2, progress=False)
    with pytest.raises(ValueError, match=re.escape(f"mcts: the network {path!r} cannot play yodd 4 (geometry=)")):
        agents.load("mcts", network=path, geometry=make("yodd", 4).extra.get("geometry"))


def test_options_are_checked(xodd4, tmp_path):
    missing = str(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match=re.escape("mcts option network must be a pretrained network's name (")
                       + ".*" + re.escape(f") or the path of a PPO checkpoint file, got {missing!r}: not a file")):
        agents.load("mcts", network=missing)
    with pytest.raises(ValueError, match=re.escape(f"got {str(tmp_path)!r}: not a file")):
        agents.load("mcts", network=str(tmp_path))
    with pytest.raises(ValueError, match="or the path of a PPO checkpoint file, got 3$"):
        agents.load("mcts", network=3)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=re.escape(f"mcts option network {str(junk)!r}: ") + ".*corrupt"):
        agents.load("mcts", network=str(junk))
    with pytest.raises(ValueError, match="network= .* or policy_value_fn=, not both"):
        agents.load("mcts", network=xodd4, policy_value_fn=lambda s: (np.ones(33), 0.0))


def test_label_options_spec_and_pickle(xodd4):
    player = agents.load(f"mcts:network={xodd4},simulations=30", seed=4)
    assert player.label == f"mcts:simulations=30,network={xodd4}"
    assert player.options["network"] == xodd4
    rebuilt = agents.load("mcts", **player.options)
    copy = pickle.loads(pickle.dumps(player))  # what the arena sends to its worker processes
    assert copy.game is player.game and copy.network == xodd4
    state = make("xodd", 4).new_state()
    assert player.act(state) == rebuilt.act(state) == copy.act(state)


def _tree_nodes(root):
    stack, out = [root], []
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(child for child in node.children if child is not None)
    return out


def test_batched_leaves_go_to_the_network_together(xodd4):
    state = make("xodd", 4).new_state()
    state.apply(int(state.legal_actions()[3]))
    sizes = []
    player = agents.load("mcts", network=xodd4, simulations=64, batch=8, seed=0)
    inner = player._player.evaluate_planes  # the network-guided search runs compiled (agents.search)
    player._player.evaluate_planes = lambda planes, masks, game=None: sizes.append(len(planes)) or inner(planes, masks,
                                                                                                     game)
    action = player.act(state)
    assert state.legal_action_mask()[action]
    # Every simulation is counted once (a walk that met a leaf awaiting evaluation was undone) ...
    assert sum(player.root_visits().values()) == player.last_simulations == 64
    tree = player._compiled.tree
    assert not tree.pending.any()
    for n in range(tree.num_nodes[0]):  # ... each node's visits are its edges' visits, each edge's value in
        count = tree.num_edges[0, n]  # [-visits, visits] (values on the [-1, 1] scale)
        if count > 0:
            edges = slice(tree.first_edge[0, n], tree.first_edge[0, n] + count)
            assert tree.node_visits[0, n] == tree.visits[0, edges].sum()
            assert np.all(np.abs(tree.value_sum[0, edges]) <= tree.visits[0, edges] + 1e-9)
    # ... and the leaves went to the network several at a time, at most `batch` per call.
    assert max(sizes) == 8 and len(sizes) < 64 // 2
    again = agents.load("mcts", network=xodd4, simulations=64, batch=8, seed=0)
    assert again.act(state) == action and again.root_visits() == player.root_visits()


def test_one_leaf_at_a_time_is_the_plain_search(xodd4):
    network = PPOAgent(path=xodd4)
    state = make("xodd", 4).new_state()
    by_network = agents.load("mcts", network=xodd4, simulations=40, batch=1, seed=5)
    by_function = MCTSAgent(simulations=40, policy_value_fn=network.policy_value, seed=5)
    assert by_network.act(state) == by_function.act(state)
    assert by_network.root_visits() == by_function.root_visits()


@pytest.mark.parametrize("batch", [1, 4])
def test_the_compiled_search_equals_the_python_tree(xodd4, batch):
    state = make("xodd", 4).new_state()
    state.apply(5)
    compiled = agents.load("mcts", network=xodd4, simulations=80, batch=batch, seed=3)
    python = agents.load("mcts", network=xodd4, simulations=80, batch=batch, seed=3, compiled=False)
    assert python.label.endswith("compiled=False") and compiled.options["compiled"] is True
    for _ in range(3):  # and again from the reused trees
        action = compiled.act(state)
        assert python.act(state) == action
        assert compiled.root_visits() == python.root_visits()
        state.apply(action)


def test_policy_values_is_policy_value_of_each_position(xodd4):
    network = PPOAgent(path=xodd4)
    rng = np.random.default_rng(0)
    states = []
    state = network.game.new_state()
    while not state.is_terminal:
        states.append(state.copy())
        state.apply(int(rng.choice(state.legal_actions())))
    together = network.policy_values(states)
    assert len(together) == len(states) and network.policy_values([]) == []
    for s, (probs, value) in zip(states, together):
        one_probs, one_value = network.policy_value(s)
        np.testing.assert_allclose(probs, one_probs, atol=1e-5)
        assert abs(value - one_value) < 1e-5
        assert probs[~s.legal_action_mask().astype(bool)].sum() == 0


def test_batch_and_c_options(xodd4):
    assert agents.load("mcts", network=xodd4).batch == agents.load("mcts").batch == 1
    assert agents.load("mcts", network=xodd4)._c == agents.players.mcts.C_VALUE
    assert agents.load("mcts")._c == agents.players.mcts.C_ROLLOUT
    assert agents.load("mcts", network=xodd4, c=2.0, batch=2).label == \
        f"mcts:simulations=200,c=2.0,network={xodd4},batch=2"
    with pytest.raises(ValueError, match=r"batch=4 needs a value function \(network= or policy_value_fn=\)"):
        agents.load("mcts", batch=4)
    with pytest.raises(ValueError, match="mcts option batch must be"):
        agents.load("mcts", network=xodd4, batch=0)
    with pytest.raises(ValueError, match="mcts option symmetries=2 averages .* it needs network="):
        agents.load("mcts", symmetries=2)
    with pytest.raises(ValueError, match="mcts option symmetries must be an integer from 1 .* to 8"):
        agents.load("mcts", network=xodd4, symmetries=9)


def test_search_on_symmetry_averaged_evaluations(xodd4):
    state = make("xodd", 4).new_state()
    state.apply(1)  # a position without symmetries: no ties between images of one action
    player = agents.load(f"mcts:network={xodd4},simulations=1,symmetries=8", seed=0)
    assert player.symmetries == 8 and player.label.endswith("symmetries=8")
    probs, _ = PPOAgent(path=xodd4, symmetries=8).policy_value(state)
    assert player.act(state) == int(np.argmax(probs))  # one simulation: the averaged prior's favourite
    assert agents.load("mcts", **player.options).symmetries == 8


def test_first_play_urgency_reduction_keeps_the_search_on_visited_edges():
    state = make("xodd", 5).new_state()
    state.apply(12)
    legal = state.legal_actions()

    def peaked(s):  # most of the prior on one action, every position a draw
        p = np.full(s.game.num_actions, 0.1)
        p[s.legal_actions()[0]] = 2.0
        return p, 0.0

    tried = []
    for reduction in (0.0, 0.5):
        player = MCTSAgent(simulations=60, policy_value_fn=peaked, fpu_reduction=reduction, seed=0)
        player.act(state)
        visits = player.root_visits()
        assert sum(visits.values()) == 60 and set(visits) == set(int(a) for a in legal)
        tried.append(sum(v > 0 for v in visits.values()))
    # Unvisited edges valued below the visited ones: fewer of them get tried (here only the first).
    assert tried[0] > 5 and tried[1] == 1
    with pytest.raises(ValueError, match="mcts option fpu_reduction"):
        MCTSAgent(fpu_reduction=-0.1)


@pytest.mark.parametrize("game,size", [("xodd", 4), ("yodd", 3)])
def test_a_network_averaged_over_the_symmetries(tmp_path_factory, game, size):
    from odd_env.symmetry import symmetries

    path = _checkpoint(tmp_path_factory, game, size)
    plain = PPOAgent(path=path)
    group = symmetries(plain.game)
    full = PPOAgent(path=path, symmetries=len(group))
    assert full.options["symmetries"] == len(group) and plain.symmetries == 1
    state = plain.game.new_state()
    state.apply(int(state.legal_actions()[len(state.legal_actions()) // 3]))
    # The average of the network's answers on every image of the position, mapped back ...
    images = []
    for s in group:
        image = plain.game.from_observation(s.map_planes(state.observation()))
        probs, value = plain.policy_value(image)
        images.append((probs[s.actions], value))  # probability of a = the image's probability of image(a)
    probs, value = full.policy_value(state)
    np.testing.assert_allclose(probs, np.mean([p for p, _ in images], axis=0), atol=1e-5)
    assert abs(value - np.mean([v for _, v in images])) < 1e-5
    assert probs[~state.legal_action_mask().astype(bool)].sum() == 0 and abs(probs.sum() - 1) < 1e-5
    # ... so on the empty board (its own image) the averaged policy is symmetric.
    empty = plain.game.new_state()
    probs, _ = full.policy_value(empty)
    for s in group:
        np.testing.assert_allclose(s.map_mask(probs), probs, atol=1e-6)
    batch = full.policy_values([empty, state])
    np.testing.assert_allclose(batch[1][0], full.policy_value(state)[0], atol=1e-5)
    for bad in (0, len(group) + 1, True, 2.5):
        with pytest.raises(ValueError, match=f"ppo option symmetries must be an integer from 1 .* to {len(group)}"):
            PPOAgent(path=path, symmetries=bad)


def test_group_weight_blends_the_group_balance_into_the_leaf_values(tmp_path_factory):
    from odd_env import GameState, square

    rng = np.random.default_rng(4)
    state = GameState(square(5))
    for _ in range(12):
        state.apply(int(rng.choice(state.legal_actions())))
    assert not state.is_terminal

    def flat(s):  # uniform priors, every position even: only the group balance says anything
        return np.ones(s.geometry.num_actions), 0.0

    for weight in (0.0, 0.5, 1.0):
        player = MCTSAgent(simulations=1, policy_value_fn=flat, group_weight=weight, seed=0)
        action = player.act(state)
        leaf = state.child(action)
        black, white = leaf.group_counts
        balance = (white - black) if leaf.to_move == 0 else (black - white)
        assert balance != 0  # (the position is chosen so that the weight shows)
        value = weight * np.tanh(balance / agents.players.mcts.GROUP_SCALE)  # for the player to act at the leaf
        value_for_root = value if leaf.to_move == state.to_move else -value
        (i,) = np.flatnonzero(player._root.visits)
        assert player._root.wins[i] == pytest.approx(0.5 * (1 + value_for_root))
    # Unless given: GROUP_WEIGHT with a value function on Xodd/Yodd, 0 with rollouts.
    auto = MCTSAgent(simulations=1, policy_value_fn=flat, seed=0)
    auto.act(state)
    assert auto.group_weight is None and auto._group_weight == agents.players.mcts.GROUP_WEIGHT == 0.5
    assert auto.label == "mcts:simulations=1,pv"
    rollouts = MCTSAgent(simulations=2, seed=0)
    rollouts.act(state)
    assert rollouts._group_weight == 0.0
    with pytest.raises(ValueError, match="group_weight=0.5 blends .* it needs network= or policy_value_fn="):
        agents.load("mcts", group_weight=0.5)
    with pytest.raises(ValueError, match="mcts option group_weight must be"):
        MCTSAgent(policy_value_fn=flat, group_weight=1.5)
    yinsh = _checkpoint(tmp_path_factory, "yinsh", 0, "blitz")
    with pytest.raises(ValueError, match="group balance of Xodd and Yodd, which yinsh does not have"):
        agents.load("mcts", network=yinsh, group_weight=0.5)
    blitz = make("yinsh", None, "blitz").new_state()
    with pytest.raises(ValueError, match="group balance of Xodd and Yodd, which yinsh does not have"):
        MCTSAgent(policy_value_fn=lambda s: (np.ones(s.game.num_actions), 0.0), group_weight=0.5).act(blitz)
    on_yinsh = agents.load("mcts", network=yinsh, simulations=4, seed=0)  # no groups: the value alone
    assert blitz.legal_action_mask()[on_yinsh.act(blitz)] and on_yinsh._group_weight == 0.0


def test_a_bad_policy_value_fn_is_named_not_a_crash():
    game = make("xodd", 5)
    state, n = game.new_state(), game.num_actions
    for fn, message in [(lambda s: (np.ones(10), 0.0), r"priors must be one number per action, shape \(51,\), got \(10,\)"),
                        (lambda s: (np.ones(n), float("nan")), "value must be a number in .* got nan"),
                        (lambda s: (np.ones(n), 5.0), "got 5.0"),
                        (lambda s: (-np.ones(n), 0.0), "priors must be finite and >= 0"),
                        (lambda s: None, r"must return \(priors, value\), got NoneType")]:
        for batch in (1, 4):  # one leaf at a time, and several per call
            with pytest.raises(ValueError, match=message):
                agents.load("mcts", policy_value_fn=fn, simulations=8, batch=batch).act(state)


def test_the_time_budget_starts_after_the_compiled_search_is_compiled(xodd4):
    player = agents.load("mcts", network=xodd4, simulations=10**6, time_budget=0.3, seed=0)
    state = make("xodd", 4).new_state()
    player.act(state)  # the first move compiles the search (seconds), then searches for 0.3 s
    assert player.last_simulations > 5
    t = time.perf_counter()
    player.act(state)
    assert time.perf_counter() - t < 0.3 + 0.5 and player.last_simulations > 5
