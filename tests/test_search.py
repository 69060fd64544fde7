"""The compiled batched search (agents.search) and the az player, on tic-tac-toe (tests/toy_game.py, with
compiled rules in tests/toy_compiled.py) and YINSH blitz.

The search is checked against a plain one-tree PUCT written here in Python over the Position API
(same visit counts on fixed positions, with a fixed numpy policy-value function), on scripted
wins in one, on tree reuse, time budgets, and through the registry and the arena.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import agents
import toy_game
from agents.arena import play_game
from agents.search import BatchedSearch, SearchConfig
from odd_env.game import make, unregister


@pytest.fixture(autouse=True)
def tictactoe():
    toy_game.register()
    yield make("tictactoe")
    unregister("tictactoe")


def board(text: str):
    """A tic-tac-toe position drawn as three rows of ``X``, ``O`` and ``.`` (X moves first)."""
    game = make("tictactoe")
    cells = "".join(text.split()).replace("/", "")
    state = game.new_state()
    xs = [i for i, ch in enumerate(cells) if ch == "X"]
    os_ = [i for i, ch in enumerate(cells) if ch == "O"]
    for k in range(len(xs) + len(os_)):
        state.apply((xs if k % 2 == 0 else os_)[k // 2])
    return state


class FixedNet:
    """A fixed policy-value function of the planes (numpy; row by row, so batching changes nothing)."""

    def __init__(self, game, seed: int):
        rng = np.random.default_rng(seed)
        size = game.num_planes * game.height * game.width
        self.w = rng.normal(0, 0.3, (game.num_actions, size))
        self.u = rng.normal(0, 0.3, size)
        self.calls = 0

    def one(self, planes: np.ndarray) -> tuple[np.ndarray, np.float32]:
        x = planes.reshape(-1).astype(np.float64)
        return (self.w @ x).astype(np.float32), np.float32(math.tanh(float(self.u @ x)))

    def __call__(self, planes: np.ndarray, masks: np.ndarray):
        self.calls += 1
        out = [self.one(p) for p in planes]
        return np.stack([o[0] for o in out]), np.array([o[1] for o in out], np.float32)


class RefNode:
    """A node of the reference search: a position, and per legal action a prior, visits, a value sum."""

    def __init__(self, position):
        self.position = position
        self.terminal = position.is_terminal
        self.to_move = 0 if self.terminal else position.to_move
        self.actions = None
        self.prior: list[float] = []
        self.visits: list[int] = []
        self.value_sum: list[float] = []
        self.children: list = []
        self.total = 0

    def expand(self, net: FixedNet | None) -> float:
        """Set the priors (softmax of the logits over the legal actions); return the value for player 0."""
        self.actions = [int(a) for a in sorted(self.position.legal_actions())]
        k = len(self.actions)
        if net is None:
            self.prior, value = [np.float32(1.0 / k)] * k, np.float32(0.0)
        else:
            logits, value = net.one(self.position.observation())
            top = max(float(logits[a]) for a in self.actions)
            total = 0.0
            for a in self.actions:
                total += math.exp(float(logits[a]) - top)
            self.prior = [np.float32(math.exp(float(logits[a]) - top) / total) for a in self.actions]
        self.visits, self.value_sum, self.children = [0] * k, [0.0] * k, [None] * k
        return float(value) if self.to_move == 0 else -float(value)

    def select(self, c: float) -> int:
        summed = 0.0
        for s in self.value_sum:
            summed += s
        fpu = summed / self.total if self.total > 0 else 0.0
        scale = c * math.sqrt(self.total + 1.0)
        best, best_score = 0, -math.inf
        for i, (p, v) in enumerate(zip(self.prior, self.visits)):
            q = self.value_sum[i] / v if v > 0 else fpu
            score = q + scale * float(p) / (1.0 + v)
            if score > best_score:
                best, best_score = i, score
        return best


def reference_puct(position, net: FixedNet | None, simulations: int, c: float = 1.0) -> RefNode:
    """Plain PUCT, one leaf at a time, values backed up by the player choosing at each node
    (with the search's virtual loss of 1, taken back at once: the same arithmetic)."""
    root = RefNode(position.copy())
    root.expand(net)
    for _ in range(simulations):
        node, path = root, []
        while True:
            if node.terminal:
                v0 = float(np.float32(node.position.returns()[0]))
                break
            if node.actions is None:
                v0 = node.expand(net)
                break
            i = node.select(c)
            node.visits[i] += 1
            node.value_sum[i] -= 1.0
            node.total += 1
            path.append((node, i))
            if node.children[i] is None:
                node.children[i] = RefNode(node.position.child(node.actions[i]))
            node = node.children[i]
        for n, i in path:
            n.value_sum[i] += (v0 if n.to_move == 0 else -v0) + 1.0
    return root


def random_positions(game, count: int, plies: tuple[int, int], seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_state()
        for _ in range(int(rng.integers(*plies))):
            legal = state.legal_actions()
            child = state.child(int(legal[rng.integers(len(legal))]))
            if child.is_terminal:
                break
            state = child
        out.append(state)
    return out


# ------------------------------------------------------------ the reference
@pytest.mark.parametrize("name,variant,plies", [("tictactoe", "", (0, 5)), ("yinsh", "blitz", (8, 40))])
def test_the_batched_search_equals_a_plain_one_tree_puct(name, variant, plies):
    game = make(name, variant=variant)
    net = FixedNet(game, seed=3)
    states = random_positions(game, 3, plies, seed=5)
    search = BatchedSearch(game, len(states), net, SearchConfig(c_puct=1.0, leaves=1), nodes=8)
    search.set_roots(states)
    done = search.run(120)
    assert done.tolist() == [120] * len(states)
    for b, state in enumerate(states):
        ref = reference_puct(state, net, 120)
        assert search.root_visits(b) == dict(zip(ref.actions, ref.visits))
        assert sum(ref.visits) == 120
        edges = search.root_edges(b)
        assert edges["actions"].tolist() == ref.actions  # ascending
        np.testing.assert_array_equal(edges["prior"], np.array(ref.prior, np.float32))
    assert search.info()["node_capacity"] > 8  # the arrays grew on the way


def test_uniform_priors_and_zero_value_equal_the_reference_too(tictactoe):
    state = board("X . . / . O . / . . .")
    search = BatchedSearch(tictactoe, 1, None, SearchConfig(c_puct=1.5))
    search.set_root(0, state)
    search.run(300)
    ref = reference_puct(state, None, 300, c=1.5)
    assert search.root_visits(0) == dict(zip(ref.actions, ref.visits))


# ------------------------------------------------------------ what it finds
@pytest.mark.parametrize("text,win", [("X X . / O O . / . . .", 2), (". . . / O O . / X X .", 8),
                                      ("X O X / . O . / . . X", 7)])
def test_it_finds_the_win_in_one_with_a_uniform_network(tictactoe, text, win):
    state = board(text)
    search = BatchedSearch(tictactoe, 1, None, SearchConfig(leaves=4))
    search.set_root(0, state)
    search.run(200)
    assert search.best_action(0) == win
    player = agents.load("az:simulations=200,rollouts=0", seed=1)
    assert player.act(state) == win


def _winning_decisions(position, depth: int = 4) -> list[int]:
    """The actions of the player to decide that win the game within their own consecutive decisions."""
    player, wins = position.to_move, []
    for action in position.legal_actions():
        child = position.child(int(action))
        if child.is_terminal:
            if child.winner == player:
                wins.append(int(action))
        elif child.to_move == player and depth > 1 and _winning_decisions(child, depth - 1):
            wins.append(int(action))
    return wins


@pytest.mark.parametrize("name,size,variant,several", [("yinsh", None, "blitz", True), ("xodd", 4, "", False),
                                                       ("yodd", 3, "", False)])
def test_it_finds_the_win_of_positions_met_in_random_play(name, size, variant, several):
    """YINSH blitz: a ring move that makes a row, the row's removal and a ring's removal are three
    decisions of one player, and the win backs up through them with no alternating sign. Xodd and
    Yodd: a pass that ends the game with a win (found by the search, not a shortcut)."""
    game = make(name, size, variant)
    rng = np.random.default_rng(11)
    found = None
    for _ in range(40):
        state = game.new_state()
        while not state.is_terminal and found is None:
            legal = state.legal_actions()
            if len(legal) > 3:
                wins = _winning_decisions(state)
                if wins and len(wins) < len(legal) // 2 and (not several or not state.child(wins[0]).is_terminal):
                    found = (state.copy(), wins)
                    break
            state.apply(int(legal[rng.integers(len(legal))]))
        if found is not None:
            break
    assert found is not None, f"no position with a win for the player to decide in 40 random games of {game.label}"
    state, wins = found
    player = agents.load("az:simulations=400,rollouts=0,batch=4", seed=0)
    assert player.act(state) in wins
    assert player.root_values()[player.act(state)] > 0.5


# ------------------------------------------------------------ reuse, noise, budgets
def test_the_subtree_of_the_action_played_is_kept(tictactoe):
    state = board(". . . / . . . / . . .")
    search = BatchedSearch(tictactoe, 2, None, SearchConfig(leaves=2))
    search.set_roots([state, state])
    search.run(300)
    action = search.best_action(0)
    visits = search.root_visits(0)[action]
    assert visits > 20
    search.advance(0, action)
    kept = search.root_visits(0)
    assert sum(kept.values()) == visits - 1  # the first visit expanded the child
    search.run(50, trees=[0])
    assert sum(search.root_visits(0).values()) == visits - 1 + 50
    # the same through reuse(), which finds the position two plies down (my move and the reply)
    first = search.best_action(1)
    reply_state = state.child(first)
    search.advance(1, first)
    reply = search.best_action(1)
    deeper = search.root_visits(1)[reply]
    search.set_root(1, state)
    search.run(300, trees=[1])
    assert search.reuse(1, reply_state.child(reply)) is True
    assert search.reuse(1, board("X . . / . . . / . . O")) is False  # not in the tree: afresh
    assert search.root_visits(1) == {}
    assert deeper > 0


def test_the_az_player_reuses_its_tree():
    state = make("tictactoe").new_state()
    carried = []
    for reuse in (True, False):
        player = agents.load("az", simulations=100, reuse_tree=reuse, seed=0)
        s = state.copy()
        action = player.act(s)
        visits = player.root_visits()[action]
        s.apply(action)
        player.act(s)
        carried.append(sum(player.root_visits().values()) - player.last_simulations)
    assert carried[0] == visits - 1 and carried[1] == 0


def test_root_noise_is_seeded_and_changes_the_search(tictactoe):
    state = tictactoe.new_state()
    runs = []
    for seed in (4, 4, 5):
        search = BatchedSearch(tictactoe, 1, None, SearchConfig(noise_fraction=0.5, dirichlet_alpha=0.5), seed=seed)
        search.set_root(0, state)
        search.run(60, noise=True)
        runs.append(search.root_visits(0))
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_a_time_budget_is_respected(tictactoe):
    player = agents.load("az:time=0.05", seed=0)
    state = tictactoe.new_state()
    player.act(state)  # compiles
    t = time.perf_counter()
    player.act(state)
    elapsed = time.perf_counter() - t
    assert player.last_simulations > 10
    assert elapsed < 0.05 + 0.25
    search = BatchedSearch(tictactoe, 4, None, SearchConfig())
    search.set_roots([state] * 4)
    done = search.run(1_000_000, deadline=time.perf_counter() + 0.05)
    assert 0 < done.max() < 1_000_000


# ------------------------------------------------------------ the player, options, the arena
def test_az_plays_legal_games_in_the_arena(tictactoe):
    for seed in range(3):  # the arena checks every move
        result = play_game("az:simulations=30,batch=2", "random", tictactoe, seed=seed)
        assert result.plies >= 5
    strong = sum(play_game("az:simulations=200", "random", tictactoe, seed=s).winner == 0 for s in range(4))
    assert strong >= 3


@pytest.mark.parametrize("spec,message", [
    ("az:simulations=1e30", "simulations must be an integer from 1 to 1,000,000"),
    ("az:simulations=0", "simulations must be an integer >= 1"),
    ("az:time=-1", "time must be a finite number in (0, 3600]"),
    ("az:batch=5000", "batch must be an integer from 1 to 4,096"),
    ("az:gumbel=-1", "az option gumbel must be an integer >= 0"),
    ("az:c=-1", "az option c must be a finite number >= 0"),
    ("az:noise=2", "az option noise must be a finite number in [0, 1]"),
    ("az:rollouts=1e9", "az option rollouts must be an integer from 0 to 1,000"),
    ("az:reuse_tree=7", "az option reuse_tree must be true or false"),
    ("az:network=nothing-here", "network must be a pretrained network's name"),
    ("az:precision=half", "az option precision must be one of float32, bfloat16, got 'half'"),
    ("az:precision=bfloat16", "precision=bfloat16 is the network's arithmetic: give network= too"),
])
def test_bad_options_are_refused_clearly(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]")):
        agents.load(spec)


def test_the_same_seed_plays_the_same_moves_with_noise(tictactoe):
    moves = []
    for _ in range(2):
        player = agents.load("az:simulations=40,noise=0.25", seed=9)
        state, played = tictactoe.new_state(), []
        while not state.is_terminal:
            played.append(player.act(state))
            state.apply(played[-1])
        moves.append(played)
    assert moves[0] == moves[1]


def test_az_refuses_a_game_without_compiled_rules(tictactoe):
    import dataclasses

    game = dataclasses.replace(tictactoe, compiled=None)
    assert "compiled rules" in agents.load("az").cannot_play(game)
    with pytest.raises(ValueError, match="has no compiled rules"):
        BatchedSearch(game, 1)


def test_az_with_a_network_checkpoint_plays_yinsh_blitz_in_the_arena(tmp_path):
    torch = pytest.importorskip("torch")
    from agents.train.ppo import Args, Trainer

    torch.set_num_threads(1)
    args = Args(game="yinsh", variant="blitz", num_games=2, rollout_steps=2, channels=8, blocks=1,
                eval_opponents="random", run_dir=str(tmp_path), tensorboard=False, progress=False, seed=2)
    path = Trainer(args).save(tmp_path / "net.pt")
    spec = f"az:network={path},simulations=12,batch=4"
    player = agents.load(spec, seed=0)
    assert player.game is make("yinsh", variant="blitz") and player.network_sha256
    result = play_game(spec, "random", player.game, seed=1)  # the arena checks every move
    assert result.plies > 10
    import pickle

    state = player.game.new_state()
    copy = pickle.loads(pickle.dumps(player))  # what the arena sends to its worker processes
    assert copy.act(state) == agents.load(spec, seed=0).act(state) and copy.network_sha256 == player.network_sha256
    with pytest.raises(ValueError, match="plays yinsh blitz, not tictactoe"):
        player.act(make("tictactoe").new_state())


def test_az_specs_work_as_gymnasium_opponents_and_in_play_sessions():
    import gymnasium

    import odd_env  # noqa: F401  (registers the Gymnasium envs)
    from agents.play.session import PlaySession

    env = gymnasium.make("odd_env/Xodd-v0", board_size=3, opponent="az:simulations=16,batch=4", play_as="black")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = terminated or truncated
    session = PlaySession("xodd", 3, opponent="az:time=0.05", human="black", seed=0)
    assert session.opponent.label == "az:time=0.05"


def test_bench_search_prints_its_tables_and_refuses_bad_arguments(tictactoe, monkeypatch, capsys):
    import importlib.util
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "benchmarks"
    monkeypatch.syspath_prepend(str(folder))  # the script imports its _args helpers from there
    spec = importlib.util.spec_from_file_location("bench_search_script", folder / "bench_search.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for argv, message in ((["fresh:nogame"], "fresh:GAME takes a game name"), (["--batches", "0"], "--batches"),
                          (["--precisions", "float32,half"], "--precisions must be one of float32, bfloat16")):
        monkeypatch.setattr(sys, "argv", ["bench_search.py", *argv])
        with pytest.raises(SystemExit) as exc:
            bench.main()
        assert exc.value.code == 2 and message in capsys.readouterr().err
    monkeypatch.setattr(sys, "argv", ["bench_search.py", "fresh:tictactoe", "--simulations", "8", "--trees", "4",
                                      "--moves", "2", "--rounds", "1", "--batches", "2", "--batch", "8",
                                      "--precisions", "float32,bfloat16"])
    bench.main()
    out = capsys.readouterr().out
    for row in ("mcts network, Python tree (before), batch 2, 8 sims", "mcts network, compiled, batch 2",
                "az, batch 2, 8 sims", "az, batch 2, bfloat16, 8 sims", "batched search, 4 trees x 1 leaves, 8",
                "batched search, 4 trees x 1 leaves, bfloat16, 8", "mcts Python tree, batch 1",
                "| yinsh | 12 |"):
        assert row in out, out


def test_a_failing_evaluator_leaves_the_tree_consistent(tictactoe):
    net = FixedNet(tictactoe, seed=1)
    calls = []

    def flaky(planes, masks):
        calls.append(len(planes))
        if len(calls) == 4:
            raise RuntimeError("the network fell over")
        return net(planes, masks)

    search = BatchedSearch(tictactoe, 2, flaky, SearchConfig(leaves=3))
    search.set_roots([tictactoe.new_state(), board("X . . / . O . / . . .")])
    with pytest.raises(RuntimeError, match="fell over"):
        search.run(50)
    assert not search.tree.pending.any()
    counted = [sum(search.root_visits(b).values()) for b in range(2)]
    done = search.run(40)  # goes on from the consistent tree: nothing waits, no virtual loss is left
    assert [sum(search.root_visits(b).values()) for b in range(2)] == [c + 40 for c in counted]
    assert done.tolist() == [40, 40]
    for b in range(2):
        edges = search.root_edges(b)
        assert np.all(np.abs(edges["q"]) <= 1.0)
    with pytest.raises(ValueError, match=r"the evaluator must return logits \(1, 10\) and values \(1,\)"):
        bad = BatchedSearch(tictactoe, 1, lambda planes, masks: (np.zeros((1, 3)), np.zeros(1)))
        bad.set_root(0, tictactoe.new_state())
        bad.run(5)


# ------------------------------------------------------------ Gumbel root selection
def test_sequential_halvings_schedule():
    from agents.search.gumbel import considered_visits

    assert considered_visits(4, 8).tolist() == [0, 0, 0, 0, 1, 1, 2, 2]
    assert considered_visits(1, 3).tolist() == [0, 1, 2]
    seq = considered_visits(16, 64)
    assert len(seq) == 64 and seq[:16].tolist() == [0] * 16 and seq.max() < 64 // 2


@pytest.mark.parametrize("text,win", [("X X . / O O . / . . .", 2), (". . . / O O . / X X .", 8),
                                      ("X O X / . O . / . . X", 7)])
def test_gumbel_root_selection_finds_the_win_and_improves_the_policy(tictactoe, text, win):
    state = board(text)
    search = BatchedSearch(tictactoe, 2, None, SearchConfig(gumbel=16), seed=0)
    search.set_roots([state, tictactoe.new_state()])
    assert search.run(24).tolist() == [24, 24]
    assert search.best_action(0) == win
    policy = search.improved_policy()
    legal = state.legal_action_mask().astype(bool)
    assert abs(policy[0].sum() - 1) < 1e-5 and policy[0][~legal].sum() == 0 and policy[0].argmax() == win
    visits = search.root_visits(0)
    assert sum(visits.values()) == 24 and visits[win] == max(visits.values())
    # sequential halving: every legal action considered once (fewer than 16), then the better half goes on
    counts = sorted(visits.values())
    assert counts[0] > 0 and len(set(counts[:-2])) == 1 and counts[-2] > counts[0]
    with pytest.raises(ValueError, match="use visit_policy"):
        plain = BatchedSearch(tictactoe, 1, None, SearchConfig())
        plain.set_root(0, state)
        plain.run(4)
        plain.improved_policy()


def test_gumbel_noise_is_seeded_and_needs_one_leaf(tictactoe):
    state = tictactoe.new_state()
    chosen = []
    for seed in (1, 1, 2, 3, 4):
        search = BatchedSearch(tictactoe, 1, FixedNet(tictactoe, 0), SearchConfig(gumbel=8), seed=seed)
        search.set_root(0, state)
        search.run(16, noise=True)
        chosen.append((search.best_action(0), tuple(search.root_visits(0).items())))
    assert chosen[0] == chosen[1] and len(set(chosen)) > 2
    with pytest.raises(ValueError, match="gumbel=8 walks down one leaf per tree per wave: it needs leaves=1"):
        SearchConfig(gumbel=8, leaves=4)
    with pytest.raises(ValueError, match="az option gumbel=8 .* give batch=1, got batch=8"):
        agents.load("az:gumbel=8,batch=8")
    player = agents.load("az:gumbel=16,simulations=24,rollouts=0", seed=0)
    assert "gumbel=16" in player.label and player.config.leaves == 1
    assert player.act(board("X X . / O O . / . . .")) == 2


@pytest.mark.parametrize("gumbel", [0, 4])
def test_one_simulation_budget_per_tree_and_the_seeded_state(tictactoe, gumbel):
    """run() takes a budget per tree (0: not searched); the targets of all trees come at once; the random
    state round-trips (get_rng_state / set_rng_state), so the same noise is drawn again."""
    state = tictactoe.new_state()

    def searched(search):
        search.set_roots([state] * 3)
        ran = search.run(np.array([6, 0, 3]), noise=True)
        return ran, search.improved_policy() if gumbel else search.visit_policy()

    search = BatchedSearch(tictactoe, 3, FixedNet(tictactoe, 0), SearchConfig(gumbel=gumbel, noise_fraction=0.25),
                           seed=5)
    saved = search.get_rng_state()
    ran, policy = searched(search)
    assert ran.tolist() == [6, 0, 3]
    assert np.allclose(policy[[0, 2]].sum(1), 1.0) and not policy[1].any()
    if not gumbel:  # visit shares of 6 and of 3 simulations
        assert np.allclose(policy[0] * 6, np.round(policy[0] * 6)) and np.allclose(policy[2] * 3, np.round(policy[2] * 3))
    search.set_rng_state(saved)
    again, policy_again = searched(search)
    assert again.tolist() == [6, 0, 3] and np.array_equal(policy, policy_again)
    quiet = []  # one noise flag per tree: a tree without noise searches as a noiseless search does
    for noise in (np.array([True, False, True]), False):
        search.set_roots([state] * 3)
        search.run(np.array([6, 6, 6]), noise=noise)
        quiet.append(search.improved_policy()[1] if gumbel else search.visit_policy()[1])
    assert np.array_equal(quiet[0], quiet[1])
    with pytest.raises(ValueError, match="one flag per tree"):
        search.run(3, noise=[True, False])
    with pytest.raises(ValueError, match="one count per tree"):
        search.run(np.array([1, 2]))
    with pytest.raises(ValueError, match="one count per tree"):
        search.run(np.zeros(3, np.int64))


def test_a_compiled_network_evaluator_computes_what_the_plain_one_does():
    """compile=True (torch.compile): the same outputs at every batch size, a batch of one included; new
    weights copied in place; pickled and rebuilt; bad input refused with nothing changed."""
    torch = pytest.importorskip("torch")
    import pickle

    from agents.pretrained import network_file
    from agents.search import NetworkEvaluator
    from agents.train.checkpoint import load_network

    torch.set_num_threads(1)
    yinsh, blitz = (load_network(network_file(name)) for name in ("yinsh", "yinsh-blitz"))
    game = make("yinsh")
    rng = np.random.default_rng(1)
    planes = []
    for _ in range(40):
        state = game.new_state()
        for _ in range(int(rng.integers(30))):
            child = state.child(int(rng.choice(state.legal_actions())))
            if child.is_terminal:
                break
            state = child
        planes.append(state.observation())
    planes = np.stack(planes)
    plain, compiled = NetworkEvaluator(yinsh), NetworkEvaluator(yinsh, compile=True)
    assert compiled.compile and not plain.compile
    for n in (1, 3, 8, 40, 1):
        want, got = plain(planes[:n]), compiled(planes[:n])
        assert got[0].shape == (n, game.num_actions) and got[1].shape == (n,)
        np.testing.assert_allclose(got[0], want[0], atol=1e-5)
        np.testing.assert_allclose(got[1], want[1], atol=1e-5)
    before = plain(planes)
    compiled.load_weights(blitz)  # (the blitz network has the architecture of yinsh)
    other = NetworkEvaluator(blitz)(planes)
    assert not np.allclose(other[0], before[0], atol=1e-3)
    np.testing.assert_allclose(compiled(planes)[0], other[0], atol=1e-5)
    np.testing.assert_allclose(plain(planes)[0], before[0], atol=0)  # the evaluators hold copies
    shared = NetworkEvaluator(yinsh, channels_last=False)  # no copy: it evaluates yinsh itself
    shared.load_weights(blitz)
    np.testing.assert_allclose(shared(planes)[0], other[0], atol=1e-5)
    np.testing.assert_allclose(NetworkEvaluator(yinsh)(planes)[0], before[0], atol=0)  # yinsh is untouched
    again = pickle.loads(pickle.dumps(compiled))
    assert again.compile
    np.testing.assert_allclose(again(planes[:5])[1], other[1][:5], atol=1e-5)
    with pytest.raises(ValueError, match="load_weights: the network has another architecture"):
        compiled.load_weights(load_network(network_file("xodd9")))
    np.testing.assert_allclose(compiled(planes)[0], other[0], atol=1e-5)  # unchanged
    with pytest.raises(ValueError, match="load_weights takes a PolicyValueNet, got OrderedDict"):
        compiled.load_weights(blitz.state_dict())
    with pytest.raises(ValueError, match="evaluator compile must be true or false, got 'yes'"):
        NetworkEvaluator(yinsh, compile="yes")
    player = agents.load("az:network=yinsh,simulations=24,compile=true", seed=0)
    assert player.label.endswith("compile=True")
    result = play_game(player, "random", game, seed=0)  # the arena checks every move
    assert result.plies > 10
    with pytest.raises(ValueError, match="az option compile=true compiles the network: give network= too"):
        agents.load("az:compile=true")


def test_a_compiled_network_evaluator_without_a_cpp_compiler_says_so(tmp_path):
    pytest.importorskip("torch")
    import os
    import subprocess
    import sys

    script = ("import numpy as np\n"
              "from agents.pretrained import network_file\n"
              "from agents.search import NetworkEvaluator\n"
              "from agents.train.checkpoint import load_network\n"
              "ev = NetworkEvaluator(load_network(network_file('yinsh')), compile=True)\n"
              "ev(np.zeros((3, 24, 11, 11), np.int8))\n")
    env = {**os.environ, "CXX": "/bin/false", "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache"),
           "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode != 0
    assert ("RuntimeError: the compiled network failed" in out.stderr
            and "torch.compile needs a working C++ compiler on CPU: evaluate without compile" in out.stderr)


def test_the_network_evaluator_in_float32_and_bfloat16(tmp_path):
    torch = pytest.importorskip("torch")
    from agents.search import NetworkEvaluator
    from agents.train.checkpoint import load_network
    from agents.train.ppo import Args, Trainer

    torch.set_num_threads(1)
    args = Args(game="xodd", board_size=5, num_games=2, rollout_steps=2, channels=16, blocks=2,
                eval_opponents="random", run_dir=str(tmp_path), tensorboard=False, progress=False, seed=3)
    path = Trainer(args).save(tmp_path / "net.pt")
    net = load_network(path)
    game = make("xodd", 5)
    rng = np.random.default_rng(0)
    planes, masks = [], []
    for _ in range(6):
        state = game.new_state()
        for _ in range(int(rng.integers(8))):
            state.apply(int(rng.choice(state.legal_actions())))
        planes.append(state.observation())
        masks.append(state.legal_action_mask())
    planes, masks = np.stack(planes), np.stack(masks).astype(np.int8)
    with torch.no_grad():
        logits, values = (t.numpy() for t in net(torch.from_numpy(planes)))
    exact = NetworkEvaluator(net)
    assert exact.precision == "float32"
    out = exact(planes, masks)
    np.testing.assert_allclose(out[0], logits, atol=1e-5)
    np.testing.assert_allclose(out[1], values, atol=1e-5)
    half = NetworkEvaluator(net, precision="bfloat16")
    low = half(planes, masks)
    assert low[0].dtype == np.float32 and low[1].dtype == np.float32
    np.testing.assert_allclose(low[0], logits, atol=0.1)  # bfloat16 keeps 8 bits of mantissa
    np.testing.assert_allclose(low[1], values, atol=0.1)
    assert not np.array_equal(low[0], logits)  # the forward pass did run in bfloat16
    with pytest.raises(ValueError, match="evaluator precision must be one of float32, bfloat16, got 'fp16'"):
        NetworkEvaluator(net, precision="fp16")
    player = agents.load(f"az:network={path},simulations=16,precision=bfloat16", seed=0)
    assert player.label.endswith("precision=bfloat16")
    result = play_game(player, "random", game, seed=0)  # the arena checks every move
    assert result.plies > 5
