"""Agents and the arena: legal play everywhere, seeded repeats, greedy's arithmetic
against brute force, scripted greedy choices, MCTS strength, the loader, and the
arena's statistics and files."""

import importlib.util
import json
import re
import subprocess
import sys

import numpy as np
import pytest
import reference as R

import agents
from agents.arena import fit_elo, main as arena_main, play_game, round_robin, wilson_interval
from agents.players.greedy import GreedyAgent
from odd_env.games.odd.heuristics import WIN, action_scores, best_turn
from agents.players.mcts import MCTSAgent
from agents.players.random_agent import RandomAgent
from odd_env import GameState, hexhex, square
from odd_env.games.odd.notation import parse_cell
from odd_env.games.odd.positions import from_ascii
from odd_env.game import make as make_game
from odd_env.games.odd.records import GameRecord

BOARDS = [square(4), square(5), hexhex(3), hexhex(4)]


def random_positions(g, count, seed):
    """Positions reached by random play: both steps, after passes, and near the end."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = GameState(g)
        stop = rng.integers(0, 2 * g.num_onboard)
        while not s.is_terminal and s.ply < stop:
            legal = s.legal_actions()
            s.apply(int(legal[rng.integers(len(legal))]))
        if not s.is_terminal:
            out.append(s)
    return out


def make_agents(seed=0):
    return [
        RandomAgent(seed=seed),
        GreedyAgent(seed=seed),
        GreedyAgent(seed=seed, tiebreak="random"),
        MCTSAgent(simulations=12, seed=seed),
        MCTSAgent(simulations=12, rollout="random", prior=None, seed=seed),
        MCTSAgent(simulations=12, prior=None, seed=seed),
    ]


# ------------------------------------------------------------------ legality


@pytest.mark.parametrize("g", BOARDS, ids=lambda g: f"{g.game}{g.size}")
def test_agents_play_only_legal_actions_and_leave_the_state_alone(g):
    positions = random_positions(g, 40, seed=g.size)
    steps = {s.turn_step for s in positions}
    assert steps == {1, 2}
    for agent in make_agents():
        for s in positions:
            before = s.data.copy()
            a = agent.act(s)
            assert s.legal_action_mask()[a], (agent.label, s, a)
            assert np.array_equal(s.data, before)
            agent.reset()


def test_agents_act_on_observations_with_inferred_geometry():
    for g in (square(5), hexhex(3)):
        for s in random_positions(g, 15, seed=7):
            planes = s.observation()
            mask = s.legal_action_mask()
            for agent in make_agents(seed=3):
                a = agent(planes, mask)
                assert mask[a]
                assert mask[agent({"observation": planes, "action_mask": mask})]
    # A mask of another position is refused before the agent thinks (once: a RuntimeError after its search).
    s = random_positions(square(5), 1, seed=8)[0]
    agent = agents.load("mcts:simulations=10", seed=0)
    before = json.dumps(agent.get_state())
    wrong = np.zeros(s.geometry.num_actions, dtype=np.int8)
    occupied = int(np.flatnonzero(s.board)[0])
    wrong[occupied] = 1
    with pytest.raises(ValueError, match=f"differs at .* action\\(s\\), {occupied} \\(illegal\\)"):
        agent(s.observation(), wrong)
    with pytest.raises(ValueError, match="not that of the position the planes show"):
        agent(s.observation(), np.ones(s.geometry.num_actions, dtype=np.int8))
    assert json.dumps(agent.get_state()) == before


def test_agents_play_whole_games_in_the_pettingzoo_env():
    from odd_env import yodd_v0

    env = yodd_v0.env(board_size=3)
    players = {"black_0": GreedyAgent(seed=1), "white_0": MCTSAgent(simulations=10, seed=2)}
    env.reset(seed=0)
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(players[name](obs["observation"], obs["action_mask"]))
    assert all(env.terminations.values())


# ------------------------------------------------------------------ reproducibility


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:simulations=16", "mcts:simulations=16,prior=none,rollout=random"])
def test_seeded_games_repeat(spec):
    a = play_game(spec, "random", "xodd", 5, seed=11)
    b = play_game(spec, "random", "xodd", 5, seed=11)
    c = play_game(agents.load(spec), agents.load("random"), "xodd", 5, seed=11)
    assert a.actions == b.actions == c.actions
    assert a.winner == b.winner


def test_agent_seed_controls_choices():
    s = random_positions(square(7), 1, seed=5)[0]
    for name in ("random", "greedy", "mcts"):
        opts = {"simulations": 8} if name == "mcts" else {}
        first = [agents.load(name, seed=1, **opts).act(s) for _ in range(2)]
        assert first[0] == first[1]
        agent = agents.load(name, seed=1, **opts)
        x = agent.act(s)
        agent.reset(seed=1)
        assert agent.act(s) == x


# ------------------------------------------------------------------ greedy


def liberty_balance(board, nbr, own):
    """Brute force: sum over empty cells of (own groups around) - (opponent groups around)."""
    labels = {}
    for colour in (1, 2):
        for x, v in enumerate(board):
            if v != colour or x in labels:
                continue
            stack = [x]
            labels[x] = x
            while stack:
                y = stack.pop()
                for z in nbr[y]:
                    if z >= 0 and board[z] == colour and z not in labels:
                        labels[z] = x
                        stack.append(z)
    total = 0
    for y, v in enumerate(board):
        if v != 0:
            continue
        for colour, sign in ((own, 1), (3 - own, -1)):
            total += sign * len({labels[z] for z in nbr[y] if z >= 0 and board[z] == colour})
    return total


def brute_score(state, own, after_pass=False):
    g = state.geometry
    board = list(state.board)
    nbr = [list(r) for r in g.neighbours]
    d = R.count_groups(board, nbr, 3 - own) - R.count_groups(board, nbr, own)
    if after_pass:
        return (WIN if d > 0 else -WIN), 0
    return d, liberty_balance(board, nbr, own)


def brute_best_turn(state):
    """The best (groups, liberties) over every legal turn, by recounting everything."""
    n = state.geometry.num_cells
    own = state.to_move + 1
    best = None
    for a in state.legal_actions():
        s1 = state.child(int(a))
        if a == 2 * n:
            score = brute_score(state, own, after_pass=state.consecutive_passes >= 1)
        elif s1.to_move != state.to_move:  # Black's first stone ends the turn
            score = brute_score(s1, own)
        else:
            score = None
            for b in s1.legal_actions():
                sc = brute_score(s1.child(int(b)), own)
                score = sc if score is None or sc > score else score
        best = score if best is None or score > best else best
    return best


@pytest.mark.parametrize("g,count", [(square(4), 40), (hexhex(3), 40), (square(5), 30), (hexhex(4), 20)],
                         ids=lambda v: f"{v.game}{v.size}" if hasattr(v, "game") else str(v))
def test_greedy_turn_score_matches_brute_force(g, count):
    positions = [s for s in random_positions(g, count, seed=1) if s.turn_step == 1]
    assert len(positions) >= count // 4
    for s in positions:
        agent = GreedyAgent(seed=0)
        first, second, groups, libs = agent.plan_turn(s)
        assert (groups, libs) == brute_best_turn(s)
        # The planned turn is legal and reaches the score it claims.
        t = s.child(first)
        if second >= 0:
            t.apply(second)
        if first != 2 * g.num_cells:
            assert brute_score(t, s.to_move + 1) == (groups, libs)
        # Every action's score is that of the best turn through it.
        scores = action_scores(s)
        legal = s.legal_action_mask().astype(bool)
        assert (scores[0, ~legal] == -4 * WIN).all()
        assert max(zip(scores[0, legal], scores[1, legal])) == (groups, libs)


@pytest.mark.parametrize("g", [square(7), square(13), hexhex(6), hexhex(8)], ids=lambda g: f"{g.game}{g.size}")
def test_greedy_pruned_turn_search_chooses_as_the_full_scan(g):
    """best_turn skips first stones that cannot reach the best turn found so far; asked for every
    action's score it skips none. Both choose the same turn with the same score, ties included
    (same tie-break seed), on positions of games mixing greedy and random turns."""
    n, nbr, rng = g.num_cells, g.neighbours, np.random.default_rng(5)
    checked = 0
    for _ in range(3):
        s = GameState(g)
        while not s.is_terminal:
            if s.turn_step == 1:
                for liberties in (True, False):
                    seed = np.array([rng.integers(1, 2**62)], dtype=np.uint64)
                    fast = best_turn(s.data.copy(), n, nbr, seed.copy(), liberties, np.empty((2, 0), dtype=np.int64))
                    full = best_turn(s.data.copy(), n, nbr, seed.copy(), liberties, np.empty((2, 2 * n + 1), dtype=np.int64))
                    assert fast == full, (s.ply, liberties)
                    checked += 1
            if rng.random() < 0.5:
                s.apply(GreedyAgent(seed=int(rng.integers(1 << 30))).act(s))
            else:
                s.apply(int(rng.choice(s.legal_actions())))
    assert checked >= 60


@pytest.mark.parametrize("g", [square(5), hexhex(4)], ids=lambda g: f"{g.game}{g.size}")
def test_greedy_second_step_scores_match_brute_force(g):
    positions = [s for s in random_positions(g, 60, seed=4) if s.turn_step == 2]
    assert len(positions) >= 10
    for s in positions:
        own = s.to_move + 1
        scores = action_scores(s)
        for a in s.legal_actions():
            assert (scores[0, a], scores[1, a]) == brute_score(s.child(int(a)), own)
        a = GreedyAgent(seed=0).act(s)
        assert (scores[0, a], scores[1, a]) == max(zip(scores[0], scores[1]))


def test_greedy_merges_four_groups_and_adds_an_opponent_group():
    s = from_ascii("xodd", """
        . . . . .
        . . X . .
        . X . X .
        . . X . O
        . . . . .
    """)
    assert s.group_counts == (4, 1)
    greedy = GreedyAgent(seed=0)
    s.apply(greedy.act(s))
    s.apply(greedy.act(s))
    # c3 joins the four black groups (-3) and flips parity; the best second stone
    # that flips it back is a lone white stone (+1): a gain of 4, the only one.
    assert s.board[parse_cell(s.geometry, "c3")] == 1
    assert s.group_counts == (1, 2)
    assert s.to_move == 1


def test_greedy_passes_to_win_and_refuses_to_pass_to_lose():
    ahead = from_ascii("xodd", """
        X X X X X
        X O . O .
        X X X X X
        . O . . .
        X X X X X
    """, to_move="white")
    ahead.apply(2 * ahead.geometry.num_cells)  # White passes; Black (2 groups vs 3) may end it
    assert ahead.group_counts == (2, 3)
    assert GreedyAgent(seed=0).act(ahead) == 2 * ahead.geometry.num_cells
    behind = from_ascii("xodd", """
        O O O O O
        O X . X .
        O O O O O
        . X . . .
        O O O O O
    """, to_move="white")
    behind.apply(2 * behind.geometry.num_cells)
    assert behind.group_counts == (3, 2)
    assert GreedyAgent(seed=0).act(behind) != 2 * behind.geometry.num_cells


def test_greedy_replans_a_second_step_it_did_not_plan():
    s = from_ascii("xodd", """
        . . . . .
        . . X . .
        . X . X .
        . . X . O
        . . . . .
    """)
    s.apply(parse_cell(s.geometry, "c3"))  # someone else plays the merge
    a = GreedyAgent(seed=0).act(s)  # step 2: must restore parity, best is a lone white stone
    s.apply(a)
    assert s.group_counts == (1, 2)


def test_greedy_beats_random():
    res = round_robin(["greedy", "random"], "xodd", 5, games_per_pair=10, seed=3, progress=False)
    assert res.wins[0, 1] >= 9


# ------------------------------------------------------------------ mcts


def test_mcts_beats_random_on_a_small_board():
    res = round_robin(["mcts:simulations=40", "random"], "xodd", 5, games_per_pair=6, seed=1, progress=False)
    assert res.wins[0, 1] >= 5


def test_mcts_finds_the_winning_pass():
    s = from_ascii("xodd", """
        X X X X X
        X O . O .
        X X X X X
        . O . . .
        X X X X X
    """, to_move="white")
    s.apply(2 * s.geometry.num_cells)
    agent = MCTSAgent(simulations=60, seed=0)
    assert agent.act(s) == 2 * s.geometry.num_cells
    # Played without searching whatever guides the search (once: only with greedy parts, and random-rollout
    # UCT could spend its simulations elsewhere).
    uniform = lambda state: (np.ones(state.geometry.num_actions), 0.0)  # noqa: E731
    for other in (MCTSAgent(simulations=20, seed=0, rollout="random", prior="none"),
                  MCTSAgent(simulations=20, seed=0, policy_value_fn=uniform)):
        assert other.act(s) == 2 * s.geometry.num_cells and other.last_simulations == 0


def test_a_search_that_failed_midway_leaves_no_broken_tree():
    calls = {"n": 0, "fail_at": None}

    def flaky(state):
        calls["n"] += 1
        if calls["n"] == calls["fail_at"]:
            return np.ones(state.geometry.num_actions), 2.0  # a value outside [-1, 1]: refused
        prior = np.full(state.geometry.num_actions, 1e-3)
        prior[state.legal_actions()[0]] = 1.0  # every walk goes down the same path, to the failed leaf
        return prior, 0.0

    s = GameState(square(5))
    # time_budget bounds the test: the broken tree made every later search stop at once (it once hung).
    agent = MCTSAgent(simulations=20, policy_value_fn=flaky, seed=0, time_budget=5.0)
    s.apply(agent.act(s))
    calls["fail_at"] = calls["n"] + 1  # the first leaf of the next search
    with pytest.raises(ValueError, match="value must be a number in"):
        agent.act(s)
    a = agent.act(s)
    assert agent.last_simulations == 20 and s.legal_action_mask()[a]


def test_mcts_with_a_policy_value_function_is_puct():
    calls = []

    def uniform(state):
        calls.append(state.ply)
        return np.ones(state.geometry.num_actions), 0.0

    s = random_positions(square(5), 1, seed=9)[0]
    agent = MCTSAgent(simulations=20, policy_value_fn=uniform, seed=0)
    a = agent.act(s)
    assert s.legal_action_mask()[a]
    assert len(calls) >= 2  # the root and the leaves, no rollouts
    assert sum(agent.root_visits().values()) == agent.last_simulations == 20


def test_mcts_time_budget_stops_the_search():
    s = GameState(square(7))
    agent = MCTSAgent(simulations=10**6, time_budget=0.05, seed=0)
    agent.act(s)
    assert 1 <= agent.last_simulations < 10**6


def test_mcts_reuses_its_tree_for_the_second_step():
    s = random_positions(square(5), 30, seed=2)
    s = next(p for p in s if p.turn_step == 1 and not p.first_turn)
    agent = MCTSAgent(simulations=50, seed=0)
    a = agent.act(s)
    s.apply(a)
    if s.turn_step == 2:
        agent.act(s)
        assert sum(agent.root_visits().values()) > agent.last_simulations


# ------------------------------------------------------------------ loader


def test_load_by_name_and_spec():
    m = agents.load("mcts:simulations=200,c=1.4,prior=greedy,time_budget=none", seed=1)
    assert isinstance(m, MCTSAgent)
    assert (m.simulations, m.c, m.prior, m.time_budget, m.seed) == (200, 1.4, "greedy", None, 1)
    assert agents.load("mcts", simulations=400, seed=1).simulations == 400
    assert isinstance(agents.load("greedy"), GreedyAgent)
    assert agents.parse_spec("greedy:tiebreak=random") == ("greedy", {"tiebreak": "random"})
    assert {"random", "greedy", "mcts", "ppo"} <= set(agents.available())
    with pytest.raises(ValueError, match="unknown agent"):
        agents.load("nobody")
    for bad in (None, 5):
        with pytest.raises(ValueError, match="an agent spec is a string like 'greedy'"):
            agents.load(bad)
    with pytest.raises(ValueError, match="bad options"):
        agents.load("random:simulations=3")
    with pytest.raises(ValueError, match="malformed"):
        agents.parse_spec("mcts:simulations")
    if importlib.util.find_spec("agents.train.ppo") is None:
        with pytest.raises(ValueError, match="could not be loaded"):
            agents.load("ppo", path="nowhere.pt")


@pytest.mark.parametrize("spec,message", [
    ("mcts:prior_temp=0", "mcts option prior_temp must be a finite number > 0, got 0"),
    ("mcts:prior_temp=-1", "mcts option prior_temp must be a finite number > 0, got -1"),
    ("mcts:prior_temp=nan", "mcts option prior_temp must be a finite number > 0, got nan"),
    ("mcts:c=nan", "mcts option c must be a finite number >= 0, got nan"),
    ("mcts:c=-1", "mcts option c must be a finite number >= 0, got -1"),
    ("mcts:simulations=inf", "mcts option simulations must be an integer >= 1, got inf"),
    ("mcts:simulations=nan", "mcts option simulations must be an integer >= 1, got nan"),
    ("mcts:simulations=0", "mcts option simulations must be an integer >= 1, got 0"),
    ("mcts:simulations=-5", "mcts option simulations must be an integer >= 1, got -5"),
    ("mcts:simulations=2.5", "mcts option simulations must be an integer >= 1, got 2.5"),
    ("mcts:simulations=many", "mcts option simulations must be an integer >= 1, got 'many'"),
    ("mcts:time_budget=0", "mcts option time_budget must be a finite number in (0, 3600], got 0"),
    ("mcts:time_budget=-1", "mcts option time_budget must be a finite number in (0, 3600], got -1"),
    ("mcts:time_budget=inf", "mcts option time_budget must be a finite number in (0, 3600], got inf"),
    ("mcts:time_budget=nan", "mcts option time_budget must be a finite number in (0, 3600], got nan"),
    ("mcts:epsilon=1.5", "mcts option epsilon must be a finite number in [0, 1], got 1.5"),
    ("mcts:epsilon=nan", "mcts option epsilon must be a finite number in [0, 1], got nan"),
    ("mcts:rollout=smart", "mcts option rollout must be one of"),
    ("mcts:prior=ppo", "mcts option prior must be one of"),
    ("mcts:reuse_tree=maybe", "mcts option reuse_tree must be true or false, got 'maybe'"),
    ("mcts:policy_value_fn=3", "mcts option policy_value_fn must be callable or None"),
    ("greedy:tiebreak=first", "greedy option tiebreak must be one of"),
    ("random:seed=-1", "random option seed must be an integer >= 0, got -1"),
    ("greedy:seed=1.5", "greedy option seed must be an integer >= 0, got 1.5"),
    ("mcts:seed=true", "mcts option seed must be an integer >= 0, got True"),
    ("random:geometry=7", "random option geometry must be a Geometry"),
    # once: "symmetries=0 ... needs network=" for a value no network takes either
    ("mcts:symmetries=0", "(8 on Xodd, 12 on Yodd and YINSH), got 0"),
    ("mcts:symmetries=true", "mcts option symmetries must be an integer from 1 (the position as it is)"),
])
def test_options_that_would_crash_in_play_are_refused_at_load(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        agents.load(spec)


def test_a_checkpoint_path_that_is_neither_a_file_nor_a_name_lists_the_names():
    with pytest.raises(FileNotFoundError, match=r"no checkpoint at nope, and no shipped network is named so \(xodd7, "):
        agents.load("ppo:path=nope")
    from agents.pretrained import load_pretrained

    for kwargs, message in [({"device": "tpu"}, "device must be cpu or cuda"),  # once torch's RuntimeError
                            ({"search": "no"}, "search must be True or False, got 'no'")]:  # once taken as true
        with pytest.raises(ValueError, match=re.escape(message)):
            load_pretrained("xodd7", **kwargs)


def test_options_at_the_edge_of_their_ranges_play():
    s = random_positions(square(5), 1, seed=3)[0]
    spec = "mcts:simulations=1,c=0,time_budget=0.001,epsilon=0,prior_temp=0.001,reuse_tree=0"
    for agent in (agents.load(spec), agents.load("mcts:epsilon=1,prior=none,rollout=random", simulations=2.0)):
        assert s.legal_action_mask()[agent.act(s)]


def play_out(agent, state):
    actions = []
    while not state.is_terminal:
        actions.append(agent.act(state))
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize("spec", ["random", "greedy", "greedy:tiebreak=random", "mcts:simulations=6,reuse_tree=false"])
def test_a_saved_agent_state_continues_exactly(spec):
    g = square(5)
    agent = agents.load(spec, seed=3)
    s = GameState(g)
    while s.ply < 6 or s.turn_step != 2:  # stop mid-turn: greedy has planned its second stone
        s.apply(agent.act(s))
    saved = json.loads(json.dumps(agent.get_state()))  # plain JSON values
    copy = agents.load(spec, seed=99)
    copy.set_state(saved)
    # A refused state changes nothing: every part is read before any is assigned.
    bad = [{"rng": {"bit_generator": "MT19937"}}, {**saved, "rng": {"bit_generator": "MT19937"}}]
    if "xorshift" in saved:
        bad += [{**saved, "xorshift": -5}, {k: v for k, v in saved.items() if k != "xorshift"}]
    for state in bad:
        with pytest.raises(ValueError, match="bad saved state"):
            copy.set_state(state)
        assert json.loads(json.dumps(copy.get_state())) == saved
    assert play_out(copy, s.copy()) == play_out(agent, s.copy())
    if spec == "greedy":
        assert saved["plan"] is not None and saved["plan"]["to_move"] == s.to_move


def test_split_specs_keeps_each_agents_options_together():
    assert agents.split_specs(" random, mcts:simulations=100,c=1.4 ,greedy,") == \
        ["random", "mcts:simulations=100,c=1.4", "greedy"]
    with pytest.raises(ValueError, match="starts with an option"):
        agents.split_specs("c=1.4,random")
    with pytest.raises(ValueError, match="an agent list is a string"):
        agents.split_specs(None)
    # Quoted values keep their commas (and colons); a piece is a new agent only with ':' before any '='.
    assert agents.split_specs('random,mcts:network="a:b,c.pt",c=1.4,ppo:path="2024"') == \
        ["random", 'mcts:network="a:b,c.pt",c=1.4', 'ppo:path="2024"']


def test_spec_values_quoted_stay_strings_and_a_key_given_twice_is_refused():
    assert agents.parse_spec('ppo:path="2024",threads=2') == ("ppo", {"path": "2024", "threads": 2})
    assert agents.parse_spec("ppo:path='runs/a,b.pt'") == ("ppo", {"path": "runs/a,b.pt"})
    assert agents.parse_spec("mcts:simulations=200,c=1.4") == ("mcts", {"simulations": 200, "c": 1.4})
    with pytest.raises(ValueError, match="option 'simulations' is given twice"):
        agents.load("mcts:simulations=100,simulations=5")  # once: the last one won silently
    with pytest.raises(ValueError, match="unclosed \" quote in agent spec"):
        agents.parse_spec('ppo:path="runs/x.pt')
    with pytest.raises(ValueError, match=re.escape('quote a name that reads as a number: path="2024"')):
        agents.load("ppo:path=2024")


def test_register_a_new_agent():
    class FirstLegal(agents.Agent):
        name = "first_legal"

        def act(self, state):
            return int(state.legal_actions()[0])

    agents.register("first_legal", FirstLegal, overwrite=True)
    assert isinstance(agents.load("first_legal", seed=2), FirstLegal)
    with pytest.raises(ValueError, match="already registered"):
        agents.register("first_legal", FirstLegal)
    with pytest.raises(ValueError, match="the factory of agent 'five' must be callable"):
        agents.register("five", 5)  # once accepted, then load("five") raised TypeError
    with pytest.raises(ValueError, match="an agent name must be a non-empty string"):
        agents.register(5, FirstLegal)
    assert "five" not in agents.available()


def test_load_checks_options_before_building(monkeypatch):
    # An unknown option is named with the options the agent takes ...
    with pytest.raises(ValueError, match=r"'foo'.*its options are simulations, c, time_budget"):
        agents.load("mcts:simulations=20,foo=1")

    # ... but a TypeError raised while building is the factory's own error, not a bad option.
    def broken(seed=None):
        raise TypeError("a bug inside the factory")

    monkeypatch.setattr(agents.registry, "_REGISTRY", dict(agents.registry._REGISTRY))  # for this test only
    agents.register("broken_factory", broken)
    with pytest.raises(TypeError, match="a bug inside the factory"):
        agents.load("broken_factory", seed=1)
    with pytest.raises(ValueError, match="its options are seed"):
        agents.load("broken_factory", depth=1)


def test_agents_import_without_torch():
    code = "import sys, agents, agents.arena; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------ arena statistics


def test_elo_fit_recovers_known_ratings():
    rng = np.random.default_rng(0)
    true = np.array([0.0, 150.0, 400.0, 700.0, 300.0])
    k = len(true)
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = 1.0 / (1.0 + 10 ** ((true[j] - true[i]) / 400.0))
            w = rng.binomial(2000, p)
            wins[i, j], wins[j, i] = w, 2000 - w
    elo, se = fit_elo(wins, anchor=0)
    assert elo[0] == 0 and se[0] == 0
    assert np.all(np.abs(elo - true) <= 3 * se[:] + 1e-9)
    assert np.abs(elo - true).max() < 40
    # Anchoring elsewhere shifts every rating by the same amount.
    elo2, _ = fit_elo(wins, anchor=2)
    assert np.allclose(elo2, elo - elo[2])


def test_elo_fit_is_finite_on_a_sweep():
    wins = np.array([[0, 0], [200, 0]])
    elo, se = fit_elo(wins)
    assert elo[0] == 0 and 600 < elo[1] < 1500 and np.isfinite(se[1])


def test_wilson_interval():
    lo, hi = wilson_interval(90, 100)
    assert lo < 0.9 < hi and 0.82 < lo < 0.84 and 0.94 < hi < 0.95
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    for n in range(1, 1001):  # a sweep's bound is exactly 1 (0), never a rounding below (above) it
        assert wilson_interval(n, n)[1] == 1.0 and wilson_interval(0, n)[0] == 0.0, n
        for w in (0, n // 3, n):
            lo, hi = wilson_interval(w, n)
            assert 0.0 <= lo <= w / n <= hi <= 1.0, (w, n)


# ------------------------------------------------------------------ arena runs


def test_round_robin_balances_colours_and_saves_everything(tmp_path):
    res = round_robin(["random", "greedy", "mcts:simulations=8"], "yodd", 3, games_per_pair=4,
                      seed=5, progress=False)
    assert len(res.games) == 12
    for a in res.labels:
        for b in res.labels:
            if a != b:
                assert sum(1 for r in res.games if r.black == a and r.white == b) == 2
    assert res.elo[res.labels.index("random")] == 0
    out = res.save(tmp_path)
    data = json.loads((out / "results.json").read_text())
    assert data["agents"] == res.labels and len(data["games"]) == 12
    for game in data["games"]:
        record = GameRecord.load(out / game["record"])
        assert list(record.actions) == game["actions"]
        assert record.state.winner == game["winner"]
    for name in ("ratings.csv", "pairs.csv", "games.csv"):
        assert (out / name).read_text().count("\n") >= 3
    assert "random" in res.table()


def test_round_robin_results_do_not_depend_on_workers():
    one = round_robin(["random", "greedy"], "xodd", 4, games_per_pair=4, seed=2, progress=False)
    two = round_robin(["random", "greedy"], "xodd", 4, games_per_pair=4, seed=2, progress=False, workers=2)
    assert [r.actions for r in one.games] == [r.actions for r in two.games]


def test_random_openings_vary_deterministic_games_and_pairs_share_them():
    from agents.base import Agent

    class Lowest(Agent):
        name = "lowest"

        def act(self, state):
            return int(state.legal_actions()[0])

    class Highest(Agent):
        name = "highest"

        def act(self, state):
            return int(state.legal_actions()[-1])

    # Two deterministic players repeat the same two games without an opening.
    plain = round_robin([Lowest(), Highest()], "xodd", 5, games_per_pair=6, seed=4, progress=False)
    assert len({tuple(r.actions) for r in plain.games}) == 2
    res = round_robin([Lowest(), Highest()], "xodd", 5, games_per_pair=6, seed=4, progress=False, opening=4)
    assert len({tuple(r.actions) for r in res.games}) == 6
    for k in range(0, 6, 2):
        first, second = res.games[k], res.games[k + 1]
        assert first.players == second.players[::-1]  # colours swapped
        assert first.opening == second.opening == 4
        assert first.actions[:4] == second.actions[:4]  # the same opening
        assert first.moves[0] + first.moves[1] == first.plies - 4  # the opening is nobody's move
    assert res.games[0].actions[:4] != res.games[2].actions[:4]
    assert "4 random opening actions" in res.table()
    # An opening longer than the game ends it before any agent moves.
    short = play_game("greedy", "random", "xodd", 2, seed=1, opening=100)
    assert short.moves == (0, 0) and short.opening == short.plies
    with pytest.raises(ValueError, match="opening must be an integer >= 0"):
        round_robin(["greedy", "random"], "xodd", 5, games_per_pair=2, opening=-1, progress=False)


def test_a_stopped_round_robin_resumes_from_its_journal(tmp_path, monkeypatch):
    import agents.arena as arena

    specs = ["random", "greedy", "mcts:simulations=4"]
    journal = tmp_path / "journal.jsonl"
    full = round_robin(specs, "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal)
    lines = journal.read_text().splitlines()
    assert len(lines) == 1 + 12 and json.loads(lines[0])["agents"] == specs
    # Stopped after 5 games, while writing the 6th line: the cut line is dropped and played again.
    journal.write_text("\n".join(lines[:6]) + "\n" + lines[6][:40])
    played = []
    run_task = arena._run_task
    monkeypatch.setattr(arena, "_run_task", lambda task: played.append(task) or run_task(task))
    resumed = round_robin(specs, "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal,
                          resume=True)
    assert len(played) == 7 and resumed.resumed == 5
    assert [r.actions for r in resumed.games] == [r.actions for r in full.games]
    assert [r.players for r in resumed.games] == [r.players for r in full.games]
    assert (resumed.wins == full.wins).all()
    assert len(journal.read_text().splitlines()) == 13
    # Complete: nothing left to play.
    played.clear()
    again = round_robin(specs, "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal, resume=True)
    assert played == [] and again.resumed == 12 and (again.wins == full.wins).all()
    # More games per pair: the journal's games are the first ones of the longer schedule.
    played.clear()
    longer = round_robin(specs, "xodd", 4, games_per_pair=6, seed=3, progress=False, journal=journal, resume=True)
    assert len(played) == 6 and longer.resumed == 12
    full6 = round_robin(specs, "xodd", 4, games_per_pair=6, seed=3, progress=False)
    assert [r.actions for r in longer.games] == [r.actions for r in full6.games]
    # Fewer: taken from the journal, which keeps the others for later.
    played.clear()
    shorter = round_robin(specs, "xodd", 4, games_per_pair=2, seed=3, progress=False, journal=journal, resume=True)
    assert played == [] and shorter.resumed == 6 and len(journal.read_text().splitlines()) == 1 + 18
    # Without resume the journal starts afresh.
    round_robin(specs[:2], "xodd", 4, games_per_pair=2, seed=3, progress=False, journal=journal)
    assert len(journal.read_text().splitlines()) == 3


@pytest.mark.parametrize("call, message", [
    (lambda: play_game("random", "random", "xodd", 3, labels=("a",)), "labels .* sequence of 2 strings"),
    (lambda: play_game("random", "random", "xodd", 3, labels="ab"), "labels .* sequence of 2 strings"),
    (lambda: play_game("random", "random", "xodd", 3, seed=1.5), "seed must be an integer >= 0, got 1.5"),
    (lambda: play_game("random", "random", "xodd", 3, opening_seed=-1), "opening_seed must be an integer >= 0"),
    (lambda: play_game(None, "random", "xodd", 3), "first must be an agents.Agent or an agent spec"),
    (lambda: round_robin("random", "xodd", 3), "agents must be a list of agents or specs"),
    (lambda: round_robin(["random", 7], "xodd", 3), r"agents\[1\] must be"),
    (lambda: round_robin(["random", "random"], "xodd", 3, games_per_pair="2"), "games_per_pair must be an integer"),
    (lambda: round_robin(["random", "random"], "xodd", 3, games_per_pair=3), "must be even"),
    (lambda: round_robin(["random", "random"], "xodd", 3, seed=None), "seed must be an integer >= 0, got None"),
    (lambda: round_robin(["random", "random"], "xodd", 3, workers=-3), "workers must be an integer >= 1"),
    (lambda: round_robin(["random", "random"], "xodd", 3, labels=["a"]), r"labels \(one per agent, 2\)"),
    (lambda: round_robin(["random", "random"], "xodd", 3, resume="yes"), "resume must be true or false"),
])
def test_arena_arguments_are_checked_before_any_game(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_play_game_checks_both_agents_against_the_board_before_any_move():
    first, moves = RandomAgent(seed=0), []
    first.act = lambda state: moves.append(state.ply) or int(state.legal_actions()[0])
    with pytest.raises(ValueError, match="agent 'ppo:pretrained=xodd9' plays xodd 9, not xodd 7"):
        play_game(first, "ppo:pretrained=xodd9", "xodd", 7)
    assert moves == []  # once: the first agent moved, then the network refused the board


def test_a_journal_that_is_a_directory_is_refused_before_any_game(tmp_path):
    (tmp_path / "j").mkdir()
    with pytest.raises(ValueError, match="journal .* is a directory"):
        round_robin(["random", "random"], "xodd", 3, games_per_pair=2, progress=False, journal=tmp_path / "j")
    assert [p.name for p in tmp_path.iterdir()] == ["j"]  # no temporary file left


def test_a_journal_of_another_round_robin_is_refused_and_kept(tmp_path):
    from agents.arena import JournalError

    journal = tmp_path / "journal.jsonl"
    round_robin(["random", "greedy"], "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal)
    text = journal.read_text()
    for kwargs, message in [
        (dict(seed=4), "seed 3 (now 4)"),
        (dict(opening=2), "opening 0 (now 2)"),
        (dict(size=5), "size 4 (now 5)"),
    ]:
        args = dict(game="xodd", size=4, games_per_pair=4, seed=3, progress=False, journal=journal, resume=True)
        args.update(kwargs)
        with pytest.raises(JournalError, match=re.escape(message)):
            round_robin(["random", "greedy"], **args)
        assert journal.read_text() == text
    with pytest.raises(JournalError, match=r"agents \['random', 'greedy'\]"):
        round_robin(["random", "mcts"], "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal,
                    resume=True)
    # The same check without playing: how many games a resume would take, or the same refusal.
    from agents.arena import check_journal

    x4 = make_game("xodd", 4)
    assert check_journal(journal, x4, ["random", "greedy"], [None, None], 4, 3) == 4
    assert check_journal(journal, x4, ["random", "greedy"], [None, None], 2, 3) == 2  # a shorter schedule
    assert check_journal(tmp_path / "none.jsonl", x4, ["random", "greedy"], [None, None], 4, 3) == 0
    with pytest.raises(JournalError, match=re.escape("seed 3 (now 4)")):
        check_journal(journal, x4, ["random", "greedy"], [None, None], 4, 4)
    assert journal.read_text() == text
    lines = text.splitlines()
    journal.write_text("\n".join([lines[0], lines[1], "{not json", lines[2]]) + "\n")
    with pytest.raises(JournalError, match="line 3 is not a game of this journal"):
        round_robin(["random", "greedy"], "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal,
                    resume=True)
    game = json.loads(lines[1])
    game["seed"] += 1  # a game of no schedule of this round robin: kept, not counted
    journal.write_text("\n".join([lines[0], json.dumps(game)]) + "\n")
    kept = round_robin(["random", "greedy"], "xodd", 4, games_per_pair=2, seed=3, progress=False, journal=journal,
                       resume=True)
    assert kept.resumed == 0 and json.loads(journal.read_text().splitlines()[1])["seed"] == game["seed"]
    game["seed"] -= 1
    journal.write_text("\n".join([lines[0], lines[1], json.dumps(game)]) + "\n")
    with pytest.raises(JournalError, match="line 3: the game of .* appears twice"):
        round_robin(["random", "greedy"], "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal,
                    resume=True)
    game["players"] = ["random", "mcts"]
    journal.write_text("\n".join([lines[0], json.dumps(game)]) + "\n")
    with pytest.raises(JournalError, match="line 2: a game of xodd between"):
        round_robin(["random", "greedy"], "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal,
                    resume=True)
    journal.write_text("results\n")
    with pytest.raises(JournalError, match="is not an arena journal"):
        round_robin(["random", "greedy"], "xodd", 4, games_per_pair=4, seed=3, progress=False, journal=journal,
                    resume=True)


def test_arena_command_line_resume(tmp_path, capsys):
    argv = ["--game", "xodd", "--board-size", "4", "--agents", "random", "greedy", "--games", "4",
            "--out", str(tmp_path), "--no-progress"]
    assert arena_main(argv[:-3] + ["--out", str(tmp_path / "fresh"), "--no-progress", "--resume"]) == 0
    assert "--resume: no journal in" in capsys.readouterr().err  # said, then every game is played
    assert arena_main(argv) == 0
    first = json.loads((tmp_path / "results.json").read_text())
    capsys.readouterr()
    assert arena_main(argv + ["--resume"]) == 0
    assert "4 games (4 of them from the journal); 0 played" in capsys.readouterr().out
    assert json.loads((tmp_path / "results.json").read_text())["games"] == first["games"]
    err = arena_fails(argv + ["--resume", "--seed", "9"], capsys)
    assert "belongs to another round robin: seed 0 (now 9)" in err


def test_a_journal_is_reported_so_far_and_when_finished(tmp_path, capsys):
    from agents.arena import ArenaResult

    specs = ["random", "greedy", "mcts:simulations=4"]
    journal = tmp_path / "journal.jsonl"
    full = round_robin(specs, "xodd", 4, games_per_pair=4, seed=3, opening=1, progress=False, journal=journal)
    # Finished: the same scores as the round robin that wrote it, nothing played.
    read = ArenaResult.from_journal(journal)
    assert read.labels == specs and (read.wins == full.wins).all() and read.opening == 1
    assert np.allclose(read.elo, full.elo) and np.allclose(read.ms_per_move, full.ms_per_move)
    assert read.games_per_pair == 4 and read.resumed == 12 and read.elapsed == 0
    # Part way, with the last line cut short by a kill: the complete games only.
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:6]) + "\n" + lines[6][:40])
    part = ArenaResult.from_journal(journal)
    assert len(part.games) == 5 and part.wins.sum() == 5
    expected = np.zeros((3, 3))
    for r in full.games[:5]:  # the journal's order is the order games finished: here the schedule's
        if r.winner is not None:
            expected[specs.index(r.players[r.winner]), specs.index(r.players[1 - r.winner])] += 1
    assert (part.wins == expected).all()
    # From the command line: the table of the journal (a file or its --out directory).
    assert arena_main(["--report", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"5 games read from {journal}" in out and "1 random opening action" in out
    assert out.rstrip().endswith("5 games in the journal")
    journal.write_text(lines[0] + "\n")
    assert arena_main(["--report", str(journal)]) == 0
    assert "holds no finished game yet" in capsys.readouterr().out
    # What --report cannot do.
    assert "drop --agents --games" in arena_fails(["--report", str(journal), "--agents", "random", "greedy",
                                                   "--games", "4"], capsys)
    assert "drop --board-size --no-records" in arena_fails(["--report", str(journal), "--board-size", "9",
                                                            "--no-records", "--no-progress"], capsys)
    assert arena_main(["--report", str(journal), "--no-progress"]) == 0
    capsys.readouterr()
    assert "no such journal" in arena_fails(["--report", str(tmp_path / "nope")], capsys)
    journal.write_text("results\n")
    assert "is not an arena journal" in arena_fails(["--report", str(journal)], capsys)
    journal.write_text("")
    assert "is empty" in arena_fails(["--report", str(journal)], capsys)
    journal.write_text("\n".join([lines[0], "{not json", lines[2]]) + "\n")
    assert "line 2 is not a game of this journal" in arena_fails(["--report", str(journal)], capsys)
    header = json.loads(lines[0])
    for change, message in [({"size": 99}, "names no game this package plays"),
                            ({"game": "chess"}, "names no game this package plays"),
                            ({"agents": ["random"]}, "two or more agent specs"),
                            ({"seed": None, "agents": None}, "should list two or more"),
                            ({}, "lacks seed")]:
        bad = {**header, **change} if change else {k: v for k, v in header.items() if k != "seed"}
        journal.write_text(json.dumps(bad) + "\n" + lines[1] + "\n")
        assert message in arena_fails(["--report", str(journal)], capsys)
    assert "required: --agents" in arena_fails(["--games", "4"], capsys)


def test_arena_command_line(tmp_path, capsys):
    rc = arena_main(["--game", "xodd", "--board-size", "4", "--agents", "random", "greedy",
                     "--games", "4", "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "Elo" in printed and "greedy" in printed
    assert (tmp_path / "results.json").exists()


def arena_fails(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        arena_main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage:") and "Traceback" not in err
    return err


@pytest.mark.parametrize("argv,message", [
    (["--agents", "random"], "--agents needs at least two agents, got 1"),
    (["--agents", "random", "greedy", "--games", "3"], "--games must be even and >= 2"),
    (["--agents", "random", "greedy", "--games", "0"], "--games must be even and >= 2"),
    (["--agents", "random", "greedy", "--games", "-4"], "--games must be even and >= 2"),
    (["--agents", "random", "greedy", "--seed", "-1"], "--seed must be >= 0"),
    (["--agents", "random", "greedy", "--workers", "0"], "--workers must be >= 1"),
    (["--agents", "random", "greedy", "--opening", "-2"], "--opening must be an integer >= 0"),
    (["--agents", "random", "gredy"], "agent 'gredy': unknown agent 'gredy'"),
    (["--agents", "random", "mcts:simulations=inf"], "mcts option simulations must be an integer >= 1, got inf"),
    (["--agents", "random", "ppo:path=missing.pt"], "agent 'ppo:path=missing.pt': no checkpoint at missing.pt"),
    (["--agents", "random", "greedy", "--board-size", "1"], "Xodd board_size"),
    (["--agents", "random", "greedy", "--game", "go"], "invalid choice: 'go'"),
    (["--agents", "random", "random", "--game", "yinsh", "--board-size", "13"],
     "YINSH has one board: give no --board-size (or 0), got 13"),  # once ignored
])
def test_arena_command_line_mistakes_exit_2(argv, message, capsys, tmp_path):
    assert message in arena_fails(argv + ["--no-progress", "--out", str(tmp_path / "out")], capsys)


def test_arena_refuses_an_out_file_before_playing(tmp_path, capsys, monkeypatch):
    import agents.arena as arena

    played = []
    monkeypatch.setattr(arena, "round_robin", lambda *a, **k: played.append(1))
    out = tmp_path / "results"
    out.write_text("keep me")
    err = arena_fails(["--agents", "random", "greedy", "--no-progress", "--out", str(out)], capsys)
    assert "--out" in err and "is a file" in err
    assert not played and out.read_text() == "keep me"


def test_arena_help_shows_a_plain_percent_sign(capsys):
    with pytest.raises(SystemExit):
        arena_main(["--help"])
    out = capsys.readouterr().out
    assert "95% intervals" in out and "%%" not in out


# ------------------------------------------------------------------ bad input to any agent


def _finished_xodd7():
    state = make_game("xodd", 7).new_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal:
        state.apply(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:simulations=5", "ppo:pretrained=xodd7"])
def test_every_agent_refuses_what_is_not_a_running_position(spec):
    if spec.startswith("ppo"):
        pytest.importorskip("torch")
    agent = agents.load(spec, seed=1)
    with pytest.raises(ValueError, match="the game is over"):
        agent.act(_finished_xodd7())  # (a network once answered with an action anyway)
    for bad in (None, "Bc4", np.zeros((12, 7, 7), np.int8)):
        with pytest.raises(ValueError, match="act takes a game position"):
            agent.act(bad)
    # the observation form: the mask must be the game's, and allow something
    state = make_game("xodd", 7).new_state()
    obs, mask = state.observation(), state.legal_action_mask()
    for bad_mask, message in [(np.zeros_like(mask), "allows no action"), (mask[:10], r"shape \(99,\), got \(10,\)"),
                              (np.ones(485, np.int8), r"got \(485,\)")]:
        with pytest.raises(ValueError, match=message):
            agent(obs, bad_mask)
    with pytest.raises(ValueError, match="holds 'observation'"):
        agent({"planes": obs})
    assert mask[agent({"observation": obs, "action_mask": mask})]


def test_a_bad_reset_seed_changes_nothing():
    agent = agents.load("mcts", simulations=5, seed=1)
    for bad in (-1, True, [1, 2], "a", 1.5):
        with pytest.raises(ValueError, match="mcts reset seed must be an integer >= 0"):
            agent.reset(seed=bad)
    assert agent.seed == 1 and agents.load("mcts", **agent.options).seed == 1


def test_statistics_refuse_impossible_counts_and_indices():
    for args, message in [((float("nan"), 10), "wins must be a finite number"), ((11, 10), r"wins must be in \[0, n\]"),
                          ((-1, 10), r"in \[0, n\]"), ((5, -2), r"in \[0, n\]"), ((5, 10, 0), "z must be > 0"),
                          ((True, 2), "finite number, got True")]:
        with pytest.raises(ValueError, match=message):
            wilson_interval(*args)
    for wins, kwargs, message in [(np.array([[0, -1], [1, 0]]), {}, "finite counts >= 0"),
                                  (np.array([[0, np.nan], [1, 0]]), {}, "finite counts >= 0"),
                                  (np.eye(2), dict(anchor=True), "anchor must be an agent's index 0..1"),
                                  (np.eye(2), dict(prior=-1), "prior must be a finite number >= 0"),
                                  (np.eye(2), dict(max_iter=0), "max_iter must be an integer >= 1"),
                                  (5, {}, "square matrix")]:
        with pytest.raises(ValueError, match=message):
            fit_elo(wins, **kwargs)
    res = round_robin(["random", "greedy"], "xodd", 3, games_per_pair=2, seed=0, progress=False)
    for i, j in [(5, 0), ("random", 1), (True, 0), (-1, 0)]:  # -1 once wrapped to the last agent
        with pytest.raises(ValueError, match="must be an agent's index 0..1"):
            res.win_rate(i, j)
    with pytest.raises(ValueError, match="i and j are both 0"):
        res.win_rate(0, 0)
    with pytest.raises(ValueError, match="must be an agent's index"):
        res.score(2)


def test_arena_command_line_keeps_an_old_journal_and_says_when_the_opening_ends_games(tmp_path, capsys):
    argv = ["--game", "xodd", "--board-size", "3", "--agents", "random", "greedy", "--games", "2",
            "--out", str(tmp_path), "--no-progress"]
    assert arena_main(argv) == 0
    journal = (tmp_path / "journal.jsonl").read_text()
    err = arena_fails(argv + ["--seed", "5"], capsys)  # once the old journal was wiped before any game
    assert "holds the journal of a round robin: add --resume" in err
    assert (tmp_path / "journal.jsonl").read_text() == journal
    assert "not both" in arena_fails(argv + ["--resume", "--overwrite"], capsys)
    assert arena_main(argv + ["--seed", "5", "--overwrite", "--opening", "1000"]) == 0
    assert "2 of 2 games ended inside the random opening (--opening 1000)" in capsys.readouterr().err


def test_arena_results_are_saved_only_where_they_fit(tmp_path):
    res = round_robin(["random", "random"], "xodd", 3, games_per_pair=2, progress=False)
    (tmp_path / "afile").write_text("")
    (tmp_path / "busy" / "results.json").mkdir(parents=True)
    for out, kwargs, message in [(tmp_path / "afile", {}, "out .* is a file, not a directory"),
                                 (tmp_path / "busy", {}, "results.json is in the way: it is a directory"),
                                 (tmp_path / "new", dict(records="no"), "records must be true or false")]:
        with pytest.raises(ValueError, match=message):
            res.save(out, **kwargs)
    assert not (tmp_path / "new").exists() and sorted(p.name for p in (tmp_path / "busy").iterdir()) == ["results.json"]
    # Saving fewer games where more were saved leaves only these games' records.
    longer = round_robin(["random", "random"], "xodd", 3, games_per_pair=4, progress=False)
    longer.save(tmp_path / "again")
    (tmp_path / "again" / "records" / "notes.txt").write_text("mine")
    res.save(tmp_path / "again")
    assert sorted(p.name for p in (tmp_path / "again" / "records").iterdir()) == \
        ["game_00000.txt", "game_00001.txt", "notes.txt"]


def test_arena_command_line_finds_a_blocked_results_path_before_any_game(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "records").write_text("in the way")
    err = arena_fails(["--agents", "random", "greedy", "--games", "2", "--no-progress", "--out", str(out)], capsys)
    assert "records is in the way: it is a file" in err
    assert sorted(p.name for p in out.iterdir()) == ["records"]  # no journal: no game was played


def test_a_journal_game_must_hold_together(tmp_path):
    from agents.arena import ArenaResult, JournalError

    journal = tmp_path / "journal.jsonl"
    round_robin(["random", "greedy", "mcts:simulations=5"], "xodd", 3, games_per_pair=2, seed=1, progress=False,
                journal=journal)
    head, *games = journal.read_text().splitlines()
    assert len(ArenaResult.from_journal(journal).games) == 6
    first = json.loads(games[0])
    flip = 1 - first["winner"]
    for edit, message in [(dict(size=9), "a game of xodd 9, not of xodd 3"),
                          (dict(actions=[999]), "plies .* do not add up|is illegal"),
                          (dict(actions=first["actions"][:-1] + [999]), "is illegal"),
                          (dict(players=["random", "random"]), "two different agents' labels"),
                          (dict(winner=True), "winner must be 0, 1 or null"), (dict(winner=2), "winner must be"),
                          (dict(winner=flip), "do not end the game with its winner"),
                          (dict(seconds=[-1.0, 0.0]), "seconds must be two finite numbers >= 0"),
                          (dict(moves=[1, 2, 3]), "moves must be two counts"), (dict(surprise=1), "unexpected keyword")]:
        line = json.dumps(dict(first, **edit))
        for where in (0, len(games) - 1):  # the last line too: it is complete, so not one cut short by a kill
            lines = list(games)
            lines[where] = line
            journal.write_text("\n".join([head] + lines) + "\n")
            with pytest.raises(JournalError, match=f"line {where + 2} is not a game of this journal .*({message})"):
                ArenaResult.from_journal(journal)
    journal.write_text("\n".join([head] + games) + "\n" + games[0][:40])  # a line cut short by a kill: left out
    assert len(ArenaResult.from_journal(journal).games) == 6
    journal.write_bytes(b"\xff\xfe binary")
    with pytest.raises(JournalError, match="not an arena journal: byte 0xff at offset 0 is not UTF-8"):
        ArenaResult.from_journal(journal)
    with pytest.raises(JournalError, match="cannot read the journal"):
        ArenaResult.from_journal(tmp_path)
    journal.write_text("\n".join([head] + games[:2]) + "\n")  # read part way: mcts has played no game yet
    table = ArenaResult.from_journal(journal).table()
    assert "| mcts:simulations=5 | no games" in table and "inf" not in table
