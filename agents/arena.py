"""The arena: round robins between agents, win rates and Elo ratings.

Command line::

    python -m agents.arena --game xodd --board-size 7 \\
        --agents random greedy mcts:simulations=200 --games 200 --workers 2

Every pair of agents plays ``--games`` games, half with each colour. The
arena prints a table of win rates with 95% confidence intervals (Wilson) and
an Elo rating per agent: a Bradley-Terry fit anchored at ``random`` = 0 (or
at the first agent when random is absent), with a 95% interval from the
curvature of the likelihood. Results go to ``--out`` (default a new
``runs/arena/<game><size>-<date>-<time>`` each run, named on stderr when the run starts): ``results.json`` (everything), ``ratings.csv``,
``pairs.csv``, ``games.csv`` and, per game, a record in the text format of
:mod:`odd_env.games.odd.records` under ``records/``. Each game is also appended to
``journal.jsonl`` as it ends: ``--resume`` with the same arguments continues a
round robin that was stopped, playing only the games its journal lacks
(with a larger ``--games``, it extends one that ended), and ``--report DIR``
prints the table of the games a journal holds, while its round robin is
still being played or after (:meth:`ArenaResult.from_journal`).

Each game is seeded from ``--seed``, the pair and the game's index, and every
agent is reset with its own seed before each game, so results do not depend on
``--workers`` or on the order in which games finish (time budgets aside).

Deterministic players (a network playing its most probable move, search
without noise) would play the same two games over and over. ``--opening N``
starts every game with ``N`` uniformly random legal actions (environment
steps, of either player, drawn from the pair's seed); the two games of a pair
that swap colours share their opening, so neither side is favoured by it.
The agents choose from the first action after the opening; its actions are
in the records and do not count as the agents' moves.

From Python: :func:`play_game` plays one game, :func:`round_robin` a whole
tournament and returns an :class:`ArenaResult`; :func:`fit_elo` and
:func:`wilson_interval` are the statistics.
"""

from __future__ import annotations

import argparse
import copy
import csv
import io
import json
import math
import os
import re
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from odd_env._files import (JOURNAL_LIMIT, check_can_make_dir, lock_dir, read_text, report_os_error, unlock_dir,
                             write_atomic)
from odd_env.game import Game, available_games, make as make_game

from .registry import load
from .base import Agent, check_board, check_bool, check_float, check_int

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of Bradley-Terry strength."""


# ---------------------------------------------------------------- one game
@dataclass
class GameResult:
    """One finished game: who played, who won, how, and every action.

    Players are numbered as in :mod:`odd_env.game` (0 moves first: Black in
    Xodd/Yodd, White in YINSH); ``players`` are the two agents' labels.
    """

    game: str
    size: int
    players: tuple[str, str]
    """Labels of the agents that played players 0 and 1."""
    winner: int | None
    """0 or 1; None for a draw."""
    plies: int
    actions: list[int] = field(repr=False)
    seconds: tuple[float, float] = (0.0, 0.0)
    """Thinking time of players 0 and 1, summed over their actions."""
    moves: tuple[int, int] = (0, 0)
    """Actions played by players 0 and 1."""
    seed: int | None = None
    variant: str = ""
    player_names: tuple[str, str] = ("black", "white")
    """The game's names of players 0 and 1."""
    opening: int = 0
    """Random opening actions played before the agents (the first ``opening`` of ``actions``)."""
    summary: dict = field(default_factory=dict)
    """Game-specific counts at the end (Xodd/Yodd: black_groups, white_groups, turns)."""

    @property
    def winner_label(self) -> str:
        """The winning agent's label ("draw" for a draw)."""
        return "draw" if self.winner is None else self.players[self.winner]

    def label_of(self, colour: str) -> str:
        """The label of the agent that played ``colour`` (a name of :attr:`player_names`)."""
        return self.players[self.player_names.index(colour)]

    @property
    def black(self) -> str:
        """The label of the agent playing Black."""
        return self.label_of("black")

    @property
    def white(self) -> str:
        """The label of the agent playing White."""
        return self.label_of("white")

    def __getattr__(self, name: str) -> Any:
        # Game-specific counts read as attributes (result.black_groups in Xodd/Yodd).
        summary = self.__dict__.get("summary", {})
        if name in summary:
            return summary[name]
        raise AttributeError(f"{type(self).__name__} of {self.__dict__.get('game')} has no attribute {name!r}")


def _agent_seeds(seed: int | None) -> tuple[int | None, int | None]:
    if seed is None:
        return None, None
    a, b = np.random.SeedSequence(seed).generate_state(2)
    return int(a), int(b)


def _check_player(what: str, agent: Any) -> None:
    if not isinstance(agent, (Agent, str)):
        raise ValueError(f"{what} must be an agents.Agent or an agent spec such as 'greedy' or "
                         f"'mcts:simulations=200', got {type(agent).__name__}: {agent!r}")


def _check_labels(labels: Any, count: int, what: str) -> tuple[str, ...]:
    if isinstance(labels, str) or not isinstance(labels, Sequence) or len(labels) != count \
            or not all(isinstance(x, str) for x in labels):
        raise ValueError(f"{what} must be a sequence of {count} strings, got {labels!r}")
    return tuple(labels)


MAX_GAMES = 1_000_000
"""Most games a pair may play in one round robin (``games_per_pair``, ``--games``)."""

MAX_WORKERS = 256
"""Most worker processes of a round robin (``workers``, ``--workers``)."""


def _game(game: str | Game, size: int | None, variant: str) -> Game:
    """The game of :func:`play_game` / :func:`round_robin`: a name with ``size`` (None: the game's
    own default size; YINSH has only that) and ``variant``, or a :class:`Game`, which brings its own."""
    return make_game(game, size, variant)


def play_game(
    first: Agent | str,
    second: Agent | str,
    game: str | Game = "xodd",
    size: int | None = None,
    seed: int | None = None,
    labels: tuple[str, str] | None = None,
    variant: str = "",
    opening: int = 0,
    opening_seed: int | None = None,
) -> GameResult:
    """Play one game between two agents (or agent specs) and return its result.

    ``first`` plays player 0 (Black in Xodd/Yodd, White in YINSH). ``game`` is
    a :class:`odd_env.game.Game` (with its own size and variant: another
    ``size`` or ``variant`` is a ValueError) or a name with ``size`` (default
    None: the game's own default size, the only one for YINSH) and ``variant``
    (``play_game("mcts", "random", "yinsh")``). With ``seed``, both
    agents are reset with seeds derived from it, so the game repeats exactly
    (unless an agent has a time budget). ``opening`` uniformly random legal
    actions, drawn from ``opening_seed`` (default: ``seed``), are played
    before the agents take over; if they end the game, no agent moves.
    """
    G = _game(game, size, variant)
    opening = check_opening(opening)
    seed = None if seed is None else check_int("seed", seed, 0)
    opening_seed = None if opening_seed is None else check_int("opening_seed", opening_seed, 0)
    for what, a in (("first", first), ("second", second)):
        _check_player(what, a)
    if labels is not None:
        labels = _check_labels(labels, 2, "play_game labels (one per player)")
    agents = [load(a) if isinstance(a, str) else a for a in (first, second)]
    if labels is None:
        labels = tuple(a if isinstance(a, str) else a.label for a in (first, second))
    for agent, label in zip(agents, labels):
        check_board(agent, G, label)  # before any move, not when the agent first acts
    for agent, s in zip(agents, _agent_seeds(seed)):
        agent.reset(s)
    state = G.new_state()
    actions: list[int] = []
    rng = np.random.default_rng(seed if opening_seed is None else opening_seed)
    for _ in range(opening):
        if state.is_terminal:
            break
        action = int(rng.choice(state.legal_actions()))
        state.apply(action)
        actions.append(action)
    played_opening = len(actions)
    seconds = [0.0, 0.0]
    moves = [0, 0]
    while not state.is_terminal:
        p = state.to_move
        t0 = time.perf_counter()
        action = agents[p].act(state)
        seconds[p] += time.perf_counter() - t0
        moves[p] += 1
        reason = state.why_illegal(action)
        if reason is not None:
            raise RuntimeError(
                f"{labels[p]} ({G.player_names[p]}) played illegal action {action!r} "
                f"after {len(actions)} actions: {reason}"
            )
        state.apply(action)
        actions.append(int(action))
    return GameResult(
        game=G.name, size=G.size, players=(labels[0], labels[1]), winner=state.winner,
        plies=len(actions), actions=actions, seconds=(seconds[0], seconds[1]), moves=(moves[0], moves[1]),
        seed=seed, variant=G.variant, player_names=G.player_names, summary=G.summary(state),
        opening=played_opening,
    )


def check_opening(opening: object) -> int:
    """``opening`` as a count of random opening actions, or ValueError."""
    if isinstance(opening, bool) or not isinstance(opening, (int, np.integer)) or opening < 0:
        raise ValueError(f"opening must be an integer >= 0 (random actions before the agents play), got {opening!r}")
    return int(opening)


# ---------------------------------------------------------------- statistics
def wilson_interval(wins: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for ``z = 1.96``); (0, 1) when ``n = 0``.

    ``wins`` (draws count half) and ``n`` are finite with ``0 <= wins <= n``, ``z > 0``; else ValueError.
    """
    for what, x in (("wins", wins), ("n", n), ("z", z)):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
                or not math.isfinite(x):
            raise ValueError(f"wilson_interval: {what} must be a finite number, got {x!r}")
    if not 0 <= wins <= n:
        raise ValueError(f"wilson_interval: wins must be in [0, n] (n = {n} games), got {wins!r}")
    if z <= 0:
        raise ValueError(f"wilson_interval: z must be > 0 (1.96 for 95%), got {z!r}")
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The interval holds p; rounding alone could put a bound of a sweep just inside it (0.9999999999999999).
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def fit_elo(
    wins: np.ndarray, anchor: int = 0, prior: float = 0.5, tol: float = 1e-10, max_iter: int = 100_000
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry ratings on the Elo scale from a matrix of wins.

    ``wins[i, j]`` is the number of games agent i won against agent j. The
    model is ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``. It is
    fitted by Hunter's MM iteration, with ``prior`` virtual wins added each
    way to every pair that played (so that a 200-0 sweep gives a large but
    finite gap), and shifted so that ``R[anchor] = 0``. Returns the ratings
    and their standard errors (from the observed information with the
    anchor fixed; 0 for the anchor, inf for an agent with no games).
    """
    try:
        w = np.asarray(wins, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"wins must be a square matrix of numbers, got {type(wins).__name__}") from None
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    k = w.shape[0]
    if not (np.isfinite(w).all() and (w >= 0).all()):
        raise ValueError("wins must be finite counts >= 0")
    if isinstance(anchor, (bool, np.bool_)) or not isinstance(anchor, (int, np.integer)) or not 0 <= anchor < k:
        raise ValueError(f"anchor must be an agent's index 0..{k - 1}, got {anchor!r}")
    prior = check_float("fit_elo prior", prior, 0.0)
    tol = check_float("fit_elo tol", tol, 0.0, low_open=True)
    max_iter = check_int("fit_elo max_iter", max_iter, 1)
    w = w.copy()
    np.fill_diagonal(w, 0.0)
    played = (w + w.T) > 0
    w = w + prior * played
    n = w + w.T
    total_wins = w.sum(axis=1)
    active = n.sum(axis=1) > 0
    gamma = np.ones(k)
    for _ in range(max_iter):
        denom = (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(active & (denom > 0), total_wins / np.where(denom > 0, denom, 1.0), 1.0)
        new = np.maximum(new, 1e-300)
        new /= math.exp(np.log(new[active]).mean()) if active.any() else 1.0
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    r = np.log(gamma)
    r -= r[anchor]
    # Observed information in log-strength units, anchor removed.
    p = 1.0 / (1.0 + np.exp(r[None, :] - r[:, None]))
    info = -(n * p * (1 - p))
    np.fill_diagonal(info, 0.0)
    np.fill_diagonal(info, -info.sum(axis=1))
    keep = [i for i in range(k) if i != anchor and active[i]]
    se = np.full(k, np.inf)
    se[anchor] = 0.0
    if keep:
        sub = info[np.ix_(keep, keep)]
        try:
            cov = np.linalg.inv(sub)
            se[keep] = np.sqrt(np.maximum(np.diag(cov), 0.0))
        except np.linalg.LinAlgError:
            pass
    return r * ELO_SCALE, se * ELO_SCALE


# ---------------------------------------------------------------- tournaments
@dataclass
class ArenaResult:
    """A finished round robin: the games and the statistics derived from them."""

    game: str
    size: int
    labels: list[str]
    games_per_pair: int
    seed: int
    games: list[GameResult]
    elapsed: float = 0.0
    variant: str = ""
    opening: int = 0
    """Random opening actions at the start of every game."""
    resumed: int = 0
    """Games taken from a journal (``round_robin(..., resume=True)``) rather than played by this run;
    ``elapsed`` counts only the games played."""
    source: str = ""
    """The journal the games were read from (:meth:`from_journal`), for the table's caption."""

    def __post_init__(self) -> None:
        k = len(self.labels)
        index = {label: i for i, label in enumerate(self.labels)}
        # A draw counts half a win to each side (win rates are scores).
        self.wins = np.zeros((k, k), dtype=np.float64)
        seconds = np.zeros(k)
        moves = np.zeros(k, dtype=np.int64)
        for r in self.games:
            ids = [index[r.players[0]], index[r.players[1]]]
            if r.winner is None:
                self.wins[ids[0], ids[1]] += 0.5
                self.wins[ids[1], ids[0]] += 0.5
            else:
                self.wins[ids[r.winner], ids[1 - r.winner]] += 1
            for p in (0, 1):
                seconds[ids[p]] += r.seconds[p]
                moves[ids[p]] += r.moves[p]
        self.anchor = self.labels.index("random") if "random" in self.labels else 0
        self.elo, self.elo_se = fit_elo(self.wins, anchor=self.anchor)
        self.ms_per_move = 1000.0 * seconds / np.maximum(moves, 1)
        self.moves = moves

    def _index(self, i: Any, what: str) -> int:
        k = len(self.labels)
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= i < k:
            raise ValueError(f"{what} must be an agent's index 0..{k - 1} (labels {self.labels}), got {i!r}")
        return int(i)

    def win_rate(self, i: int, j: int) -> tuple[float, float, float, int]:
        """(score of agent i against j (draws count half), 95% low, 95% high, games); i and j are
        indices of :attr:`labels`, and differ. NaN score, (0, 1) when they played no game."""
        i, j = self._index(i, "i"), self._index(j, "j")
        if i == j:
            raise ValueError(f"win_rate compares two agents: i and j are both {i}")
        n = int(self.wins[i, j] + self.wins[j, i])
        lo, hi = wilson_interval(self.wins[i, j], n)
        return (self.wins[i, j] / n if n else float("nan")), lo, hi, n

    def score(self, i: int) -> tuple[float, int]:
        """(fraction of all its games agent i won, games)."""
        i = self._index(i, "i")
        n = int(self.wins[i].sum() + self.wins[:, i].sum())
        return (self.wins[i].sum() / n if n else float("nan")), n

    def table(self) -> str:
        """The results as a Markdown table, agents by descending Elo."""
        order = np.argsort(-self.elo, kind="stable")
        short = [f"{self.labels[i]}" for i in order]
        head = ["agent", "Elo (95% CI)", "score", "ms/move"] + [f"vs {s}" for s in short]
        rows = []
        for i in order:
            ci = "" if i == self.anchor else f" ± {1.96 * self.elo_se[i]:.0f}"
            sc, played = self.score(i)
            if not played:  # no rating and no score to show (a journal read part way)
                cells = [self.labels[i], "no games", "", ""]
            else:
                cells = [self.labels[i], f"{self.elo[i]:.0f}{ci}", f"{sc:.1%}", f"{self.ms_per_move[i]:.2f}"]
            for j in order:
                if i == j:
                    cells.append("-")
                    continue
                wr, lo, hi, n = self.win_rate(i, j)
                cells.append(f"{wr:.1%} [{lo:.1%}, {hi:.1%}]" if n else "")
            rows.append(cells)
        widths = [max(len(r[c]) for r in [head] + rows) for c in range(len(head))]
        fmt = lambda r: "| " + " | ".join(x.ljust(wd) for x, wd in zip(r, widths)) + " |"  # noqa: E731
        lines = [fmt(head), "|" + "|".join("-" * (wd + 2) for wd in widths) + "|"]
        lines += [fmt(r) for r in rows]
        count = (f"{len(self.games)} games read from {self.source}" if self.source else
                 f"{self.games_per_pair} games per pair ({self.games_per_pair // 2} with each colour), "
                 f"{len(self.games)} games")
        caption = (
            f"{make_game(self.game, self.size, self.variant).label}: {count}, seed {self.seed}"
            f"{f', {self.opening} random opening actions' if self.opening else ''}; "
            f"win rates of the row agent, Wilson 95% intervals; Elo by Bradley-Terry, "
            f"{self.labels[self.anchor]} = 0"
        )
        return caption + "\n\n" + "\n".join(lines)

    @classmethod
    def from_journal(cls, path: str | os.PathLike) -> "ArenaResult":
        """The games of the journal at ``path`` (a round robin's ``journal.jsonl``), scored.

        Works on the journal of a finished round robin and on one still being
        played or stopped part way (its games so far; a last line cut short is
        left out). No agent is loaded and nothing is played. ``games_per_pair``
        is the most games any pair has in the journal; ``elapsed`` is 0 and
        ``resumed`` counts every game.
        """
        path = Path(path)
        header = _read_header(path)
        labels = list(header["agents"])
        _, others = read_journal(path, header, [])
        games = [_game_from_json(d) for d in others]
        pairs: dict[frozenset, int] = {}
        for r in games:
            key = frozenset(r.players)
            pairs[key] = pairs.get(key, 0) + 1
        return cls(game=header["game"], size=header["size"], labels=labels, variant=header.get("variant", ""),
                   games_per_pair=max(pairs.values(), default=0), seed=header["seed"], games=games,
                   opening=header.get("opening", 0), resumed=len(games), source=str(path))

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-ready data."""
        k = len(self.labels)
        pairs = []
        for i in range(k):
            for j in range(i + 1, k):
                wr, lo, hi, n = self.win_rate(i, j)
                pairs.append({"agent": self.labels[i], "opponent": self.labels[j], "games": n,
                              "wins": float(self.wins[i, j]), "losses": float(self.wins[j, i]),
                              "win_rate": wr, "ci95": [lo, hi]})
        ratings = []
        for i in range(k):
            sc, n = self.score(i)
            ratings.append({"agent": self.labels[i], "elo": float(self.elo[i]),
                            "elo_ci95": 0.0 if i == self.anchor else float(1.96 * self.elo_se[i]),
                            "score": sc, "games": n, "moves": int(self.moves[i]),
                            "ms_per_move": float(self.ms_per_move[i])})
        return {
            "game": self.game, "size": self.size, "variant": self.variant, "agents": list(self.labels),
            "games_per_pair": self.games_per_pair, "seed": self.seed, "opening": self.opening,
            "anchor": self.labels[self.anchor],
            "elapsed_seconds": self.elapsed, "ratings": ratings, "pairs": pairs,
            "games": [dict(asdict(r), index=i) for i, r in enumerate(self.games)],
        }

    def save(self, out: str | os.PathLike, records: bool = True) -> Path:
        """Write results.json, ratings.csv, pairs.csv, games.csv and (``records``) records/
        into the folder ``out`` (made as needed); ValueError before writing anything if it cannot be."""
        out = check_save_dir(out)
        records = check_bool("records", records)
        out.mkdir(parents=True, exist_ok=True)
        data = self.to_dict()
        if records:
            rec_dir = out / "records"
            rec_dir.mkdir(exist_ok=True)
            G = make_game(self.game, self.size, self.variant)
            names = set()
            for i, (r, d) in enumerate(zip(self.games, data["games"])):
                name = f"game_{i:05d}.txt"
                G.record(r.actions).save(rec_dir / name)
                d["record"] = f"records/{name}"
                names.add(name)
            for old in rec_dir.glob("game_*.txt"):  # an earlier, longer round robin's: not these results' games
                if old.name not in names and re.fullmatch(r"game_\d{5,}\.txt", old.name):
                    old.unlink()
        write_atomic(out / "results.json", json.dumps(data, indent=1), what="results.json")
        _write_csv(out / "ratings.csv", data["ratings"])
        _write_csv(out / "pairs.csv", [
            dict(p, ci95_low=p["ci95"][0], ci95_high=p["ci95"][1], ci95=None) for p in data["pairs"]
        ], drop=("ci95",))
        names = make_game(self.game, self.size, self.variant).player_names
        _write_csv(out / "games.csv", [
            {"index": i, names[0]: r.players[0], names[1]: r.players[1],
             "winner": "draw" if r.winner is None else names[r.winner], **r.summary,
             "plies": r.plies, "opening": r.opening, "seed": r.seed, f"{names[0]}_seconds": r.seconds[0],
             f"{names[1]}_seconds": r.seconds[1]}
            for i, r in enumerate(self.games)
        ])
        return out


def _write_csv(path: Path, rows: list[dict[str, Any]], drop: Iterable[str] = ()) -> None:
    buf = io.StringIO(newline="")
    if rows:
        writer = csv.DictWriter(buf, fieldnames=[k for k in rows[0] if k not in drop], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    write_atomic(path, buf.getvalue(), what=path.name)


def _game_seed(seed: int, i: int, j: int, k: int) -> int:
    return int(np.random.SeedSequence([seed, i, j, k]).generate_state(1, dtype=np.uint64)[0] >> 1)


def _schedule(k: int, games_per_pair: int, seed: int) -> list[tuple[int, int, int, int]]:
    """(player 0, player 1, game seed, opening seed) for every game: each pair plays half its
    games with each colour; games 2m and 2m + 1 of a pair swap colours and share an opening seed."""
    tasks = []
    for i in range(k):
        for j in range(i + 1, k):
            for g in range(games_per_pair):
                black, white = (i, j) if g % 2 == 0 else (j, i)
                tasks.append((black, white, _game_seed(seed, i, j, g), _game_seed(seed, i, j, g - g % 2)))
    return tasks


_WORKER: dict[str, Any] = {}


def _die_with_parent(parent: int) -> None:
    """End this worker process when the arena process ``parent`` ends, however it ends (kill -9 too).

    On Linux the kernel sends SIGKILL at the parent's death (prctl PR_SET_PDEATHSIG); everywhere a
    daemon thread also checks every second that the parent is still this process's parent. Without
    them a killed arena left its workers playing for minutes, holding its output pipe open.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="arena-parent-watch", daemon=True).start()


def _init_worker(agents: list[Agent], labels: list[str], game: Game, opening: int = 0,
                 parent: int | None = None) -> None:
    if parent is not None:
        _die_with_parent(parent)
    _WORKER.update(agents=agents, labels=labels, game=game, opening=opening)


def _run_task(task: tuple[int, int, int, int]) -> GameResult:
    first, second, seed, opening_seed = task
    w = _WORKER
    return play_game(w["agents"][first], w["agents"][second], w["game"], seed=seed,
                     labels=(w["labels"][first], w["labels"][second]),
                     opening=w["opening"], opening_seed=opening_seed)


def _progress(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is an optional extra
        return None
    return tqdm(total=total, desc=desc, unit="game", dynamic_ncols=True)


def round_robin(
    agents: Sequence[Agent | str],
    game: str | Game = "xodd",
    size: int | None = None,
    games_per_pair: int = 100,
    seed: int = 0,
    workers: int = 1,
    progress: bool = True,
    labels: Sequence[str] | None = None,
    variant: str = "",
    opening: int = 0,
    journal: str | os.PathLike | None = None,
    resume: bool = False,
) -> ArenaResult:
    """Play every pair of ``agents`` (instances or specs) ``games_per_pair`` times.

    ``game`` is a :class:`odd_env.game.Game` (as in :func:`play_game`) or a
    name with ``size`` and ``variant``. Half of each pair's games are played with each colour.
    ``workers > 1`` runs games in that many processes (agents are pickled to each).
    ``opening`` random legal actions start every game, the same for the two
    games of a pair that swap colours (see the module docstring).

    ``journal``: a file that gets one JSON line per finished game as it
    ends (after a header line naming the tournament), so a long round robin
    survives being stopped. With ``resume``, the games already in that
    journal are taken from it and only the others are played (the same
    games: each game's seed depends only on its place in the schedule);
    the journal must belong to the same tournament (game, labels, seed,
    opening, and the checksum of each agent's network file, so that a
    checkpoint retrained at the same path is not taken for the old one:
    :func:`read_journal`); ``games_per_pair`` may differ, so a short
    measurement can later be extended to a long one. Without ``resume``, the
    journal is started afresh.
    """
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise ValueError(f"agents must be a list of agents or specs (e.g. ['greedy', 'mcts:simulations=200']), "
                         f"got {type(agents).__name__}: {agents!r}")
    for i, a in enumerate(agents):
        _check_player(f"agents[{i}]", a)
    games_per_pair = check_int("games_per_pair", games_per_pair, 2, MAX_GAMES)
    if games_per_pair % 2:
        raise ValueError(f"games_per_pair must be even and >= 2 (half with each colour), got {games_per_pair}")
    if len(agents) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {len(agents)}")
    if labels is not None:
        labels = list(_check_labels(labels, len(agents), f"labels (one per agent, {len(agents)})"))
    seed = check_int("seed", seed, 0)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    progress = check_bool("progress", progress)
    resume = check_bool("resume", resume)
    G = _game(game, size, variant)  # validates early
    opening = check_opening(opening)
    if labels is None:
        labels = [a if isinstance(a, str) else a.label for a in agents]
    players: list[Agent] = []
    for a, label in zip(agents, labels):
        agent = load(a) if isinstance(a, str) else a
        check_board(agent, G, label)
        if any(agent is other for other in players):
            agent = copy.deepcopy(agent)
        players.append(agent)
    labels = _unique(list(labels))
    tasks = _schedule(len(players), games_per_pair, seed)
    results: list[GameResult | None] = [None] * len(tasks)
    log = None
    if journal is not None:
        journal = Path(journal)
        header = _journal_header(G, labels, seed, opening, [p.network_sha256 for p in players])
        done, others = read_journal(journal, header, tasks) if resume and journal.exists() else ({}, [])
        for idx, r in done.items():
            results[idx] = r
        # Rewritten whole (dropping a line cut short by a kill), through a temporary file: a kill
        # meanwhile leaves the old journal as it was.
        lines = [json.dumps(header)] + [json.dumps(dict(asdict(done[idx]), index=idx)) for idx in sorted(done)]
        lines += [json.dumps(d) for d in others]  # games of a longer round robin
        write_atomic(journal, "\n".join(lines) + "\n", what="journal")
        log = journal.open("a")
    todo = [idx for idx, r in enumerate(results) if r is None]

    def finished(idx: int, result: GameResult) -> None:
        results[idx] = result
        if log is not None:
            log.write(json.dumps(dict(asdict(result), index=idx)) + "\n")
            log.flush()
        if bar is not None:
            bar.update(1)

    bar = _progress(len(tasks), progress, G.label)
    if bar is not None and len(todo) < len(tasks):
        bar.update(len(tasks) - len(todo))
    t0 = time.perf_counter()
    try:
        if workers <= 1:
            _init_worker(players, labels, G, opening)
            for idx in todo:
                finished(idx, _run_task(tasks[idx]))
        elif todo:
            with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                     initializer=_init_worker,
                                     initargs=(players, labels, G, opening, os.getpid())) as pool:
                futures = {pool.submit(_run_task, tasks[idx]): idx for idx in todo}
                for fut in as_completed(futures):
                    finished(futures[fut], fut.result())
    finally:
        if bar is not None:
            bar.close()
        if log is not None:
            log.close()
    return ArenaResult(game=G.name, size=G.size, labels=labels, variant=G.variant,
                       games_per_pair=games_per_pair, seed=seed, games=results,  # type: ignore[arg-type]
                       elapsed=time.perf_counter() - t0, opening=opening, resumed=len(tasks) - len(todo))


JOURNAL_FORMAT = 1
"""Version of the journal's header line (:func:`round_robin` ``journal=``)."""


def _journal_header(G: Game, labels: list[str], seed: int, opening: int,
                    networks: list[str | None]) -> dict[str, Any]:
    # games_per_pair is not part of it: a journal continues with more (or fewer) games per pair.
    # networks: each agent's network file checksum (None without one), so that an agent whose label is
    # the same but whose weights changed (a retrained checkpoint at the same path) is not taken for it.
    return {"arena_journal": JOURNAL_FORMAT, "game": G.name, "size": G.size, "variant": G.variant,
            "agents": list(labels), "seed": seed, "opening": opening, "networks": list(networks)}


def _game_from_json(d: dict[str, Any]) -> GameResult:
    d = dict(d)
    for key in ("players", "seconds", "moves", "player_names"):
        d[key] = tuple(d[key])
    return GameResult(**d)


def _is_int(x: Any, low: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


def _check_journal_game(r: GameResult, game: Game) -> None:
    """ValueError unless ``r`` is a game of ``game`` whose record holds together: its actions replay
    legally to the end, with the recorded winner, moves and opening."""
    if (r.game, r.size, r.variant) != (game.name, game.size, game.variant):
        raise ValueError(f"a game of {r.game} {r.size} {r.variant}".rstrip() + f", not of {game.label}")
    if len(r.players) != 2 or not all(isinstance(p, str) for p in r.players) or r.players[0] == r.players[1]:
        raise ValueError(f"players must be two different agents' labels, got {list(r.players)}")
    if not (r.winner is None or (_is_int(r.winner) and r.winner <= 1)):
        raise ValueError(f"winner must be 0, 1 or null (a draw), got {r.winner!r}")
    if len(r.seconds) != 2 or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                      and 0 <= x < math.inf for x in r.seconds):
        raise ValueError(f"seconds must be two finite numbers >= 0, got {list(r.seconds)}")
    if len(r.moves) != 2 or not all(_is_int(m) for m in r.moves):
        raise ValueError(f"moves must be two counts >= 0, got {list(r.moves)}")
    if not (isinstance(r.actions, list) and all(_is_int(a) for a in r.actions)):
        raise ValueError("actions must be a list of integers >= 0")
    if not (_is_int(r.plies) and r.plies == len(r.actions) and _is_int(r.opening) and r.opening <= r.plies
            and r.opening + sum(r.moves) == r.plies):
        raise ValueError(f"plies {r.plies!r}, opening {r.opening!r} and moves {list(r.moves)} do not add up to "
                         f"its {len(r.actions)} actions")
    if not (r.seed is None or _is_int(r.seed)):
        raise ValueError(f"seed must be an integer >= 0 or null, got {r.seed!r}")
    state = game.new_state()
    for i, a in enumerate(r.actions):
        reason = state.why_illegal(a) if not state.is_terminal else "the game was already over"
        if reason is not None:
            raise ValueError(f"action {i + 1} ({a}) is illegal: {reason}")
        state.apply(a)
    if not state.is_terminal or state.winner != r.winner:
        raise ValueError("its actions do not end the game with its winner" if state.is_terminal
                         else "its actions do not finish the game")


def check_save_dir(out: str | os.PathLike) -> Path:
    """``out`` as a Path if :meth:`ArenaResult.save` can write there, else ValueError naming what is in the
    way (checked by the command line before any game, so that games are not played for nothing)."""
    out = check_can_make_dir(out, "out")
    for name in ("results.json", "ratings.csv", "pairs.csv", "games.csv", "records"):
        if (out / name).exists() and ((out / name).is_dir() != (name == "records")):
            raise ValueError(f"{out / name} is in the way: it is a {'directory' if (out / name).is_dir() else 'file'}")
    return out


class JournalError(ValueError):
    """A journal that cannot be resumed: another tournament's, or damaged."""


def _parse_header(path: Path, line: str,
                  hint: str = "write the journal elsewhere, or delete it to start again") -> dict[str, Any]:
    try:
        found = json.loads(line)
    except json.JSONDecodeError:
        found = None
    if not isinstance(found, dict) or found.get("arena_journal") != JOURNAL_FORMAT:
        raise JournalError(f"{path} is not an arena journal of format {JOURNAL_FORMAT} (its first line is "
                           f"{line[:80]!r}): {hint}")
    if "networks" not in found:  # a journal from before checksums: agents without a network only
        found = {**found, "networks": [None] * len(found.get("agents") or ())}
    return found


def _read_text(path: Path) -> str:
    """The text of the journal at ``path``; :class:`JournalError` naming it if it cannot be read as text."""
    try:
        return read_text(path, "journal", JOURNAL_LIMIT)
    except UnicodeDecodeError as exc:
        raise JournalError(f"{path} is not an arena journal: byte {exc.object[exc.start]:#04x} at offset "
                           f"{exc.start} is not UTF-8 text") from None
    except OSError as exc:
        raise JournalError(f"cannot read the journal {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a directory, not a regular file, or too large
        raise JournalError(f"cannot read the journal: {exc}") from None


def _read_header(path: Path) -> dict[str, Any]:
    """The header line of the journal at ``path``, checked (:class:`JournalError` if it is none)."""
    first = _read_text(path).split("\n", 1)[0]
    if not first.strip():
        raise JournalError(f"{path} is empty: not an arena journal")
    header = _parse_header(path, first.rstrip("\n"), hint="give the journal.jsonl of an arena run")
    missing = [k for k in ("game", "size", "agents", "seed") if k not in header]
    if missing:
        raise JournalError(f"{path}: the journal's header lacks {', '.join(missing)}")
    try:
        make_game(header["game"], header["size"], header.get("variant", ""))
    except (ValueError, TypeError) as exc:
        raise JournalError(f"{path}: the journal's header names no game this package plays ({exc})") from None
    agents = header["agents"]
    if not isinstance(agents, list) or len(agents) < 2 or not all(isinstance(a, str) for a in agents):
        raise JournalError(f"{path}: the journal's header should list two or more agent specs, not {agents!r}")
    if not _is_int(header["seed"]) or not _is_int(header.get("opening", 0)):
        raise JournalError(f"{path}: the journal's header should give seed and opening as integers >= 0, not "
                           f"{header['seed']!r} and {header.get('opening', 0)!r}")
    return header


def check_journal(path: str | os.PathLike, game: Game, labels: list[str], networks: list[str | None],
                  games_per_pair: int, seed: int, opening: int = 0) -> int:
    """The number of games a round robin of these arguments would take from the journal at ``path``
    with ``resume`` (0 if there is none); :class:`JournalError` if the journal is of another round
    robin. For tools that check every journal before the first game of any (``networks``: each
    agent's ``network_sha256``)."""
    header = _journal_header(game, list(labels), seed, opening, list(networks))
    if not Path(path).exists():
        return 0
    done, _ = read_journal(path, header, _schedule(len(labels), games_per_pair, seed))
    return len(done)


def read_journal(path: str | os.PathLike, header: dict[str, Any],
                 tasks: list[tuple[int, int, int, int]]) -> tuple[dict[int, GameResult], list[dict[str, Any]]]:
    """The games of the journal at ``path``: ``(in_schedule, others)``.

    The journal must have been written by a round robin of the same
    ``header`` (game, agents' labels, seed, opening); otherwise
    :class:`JournalError` (a ValueError) says what differs. Games are known by
    their players and seed, which depend only on their place in the schedule:
    ``in_schedule`` maps the index in ``tasks`` of each game found there to
    its result, so a journal of a shorter or longer round robin (other
    ``games_per_pair``) can be continued; ``others`` are the journal's games
    (as JSON data) that ``tasks`` does not hold, kept for a longer one. A
    last line cut short (the process was killed while writing it) is
    dropped; a bad line elsewhere is an error.
    """
    path = Path(path)
    if not isinstance(header, dict) or not {"game", "size", "agents", "networks"} <= set(header):
        raise ValueError("header must be a journal header: a dict with game, size, agents, networks, ... "
                         "(as round_robin writes it)")
    if not isinstance(tasks, list) or not all(isinstance(t, tuple) and len(t) == 4 for t in tasks):
        raise ValueError("tasks must be a list of (player 0, player 1, game seed, opening seed) tuples")
    text = _read_text(path)
    complete = text.endswith("\n")
    lines = text.splitlines()
    if not lines:
        return {}, []
    found = _parse_header(path, lines[0])
    diff = [f"{k} {found.get(k)!r} (now {v!r})" for k, v in header.items() if found.get(k) != v and k != "networks"]
    if not diff and found["networks"] != header["networks"]:
        changed = [f"{label} (sha256 {str(old)[:12]} in the journal, {str(new)[:12]} now)"
                   for label, old, new in zip(header["agents"], found["networks"], header["networks"]) if old != new]
        diff = [f"the network file of {', '.join(changed)} is not the one its games were played with"]
    if diff:
        raise JournalError(f"the journal {path} belongs to another round robin: {'; '.join(diff)}; "
                           "resume with the same arguments, or write the journal elsewhere")
    labels = header["agents"]
    game = make_game(header["game"], header["size"] or None, header.get("variant", ""))
    where = {(labels[b], labels[w], game_seed): idx for idx, (b, w, game_seed, _) in enumerate(tasks)}
    games: dict[int, GameResult] = {}
    others: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    for n, line in enumerate(lines[1:], start=2):
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            if n == len(lines) and not complete:  # cut short by a kill: play that game again
                break
            raise JournalError(f"{path} line {n} is not a game of this journal (not JSON: {exc}): delete the line "
                               "or the journal") from exc
        try:
            if not isinstance(d, dict):
                raise ValueError(f"a game is a JSON object, got {type(d).__name__}")
            d.pop("index", None)
            result = _game_from_json(d)
            _check_journal_game(result, game)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise JournalError(f"{path} line {n} is not a game of this journal ({type(exc).__name__}: {exc}): "
                               "delete the line or the journal") from exc
        key = (*result.players, result.seed)
        if not set(result.players) <= set(labels) or result.game != header["game"]:
            raise JournalError(f"{path} line {n}: a game of {result.game} between {result.players}, not of this "
                               f"round robin ({header['game']}, agents {labels})")
        if key in seen:
            raise JournalError(f"{path} line {n}: the game of {result.players} with seed {result.seed} appears twice")
        seen.add(key)
        if key in where:
            games[where[key]] = result
        else:
            others.append(d)
    return games, others


def _unique(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


# ---------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    """The arena's argument parser."""
    p = argparse.ArgumentParser(
        prog="python -m agents.arena",
        description="Round robin between agents: win rates with 95% intervals and Elo ratings.",
    )
    p.add_argument("--game", choices=available_games(), default="xodd", help="which game (default xodd)")
    p.add_argument("--board-size", type=int, default=None,
                   help="Xodd side n or Yodd base n (default 7; YINSH has one board: give none, or 0)")
    p.add_argument("--variant", default="", help="the game's variant: YINSH blitz (default: the standard game)")
    p.add_argument("--agents", nargs="+", metavar="SPEC",
                   help="agent specs: name[:key=value,...], e.g. random greedy mcts:simulations=200 "
                        "(required unless --report)")
    p.add_argument("--games", type=int, default=100,
                   help="games per pair, even: half with each colour (default 100)")
    p.add_argument("--seed", type=int, default=0, help="base seed of every game (default 0)")
    p.add_argument("--opening", type=int, default=0, metavar="N",
                   help="start every game with N random legal actions, shared by the two games of a pair "
                        "that swap colours (varied games between deterministic players; default 0)")
    p.add_argument("--workers", type=int, default=1, help="parallel processes (default 1)")
    p.add_argument("--out", default=None,
                   help="output directory (default: a new runs/arena/<game><size><variant>-<date>-<time> each run; "
                        "--resume needs the --out of the run it continues)")
    p.add_argument("--resume", action="store_true",
                   help="continue the round robin whose journal (journal.jsonl, a line per finished game) is in "
                        "--out: its games are kept and only the others are played; the agents, --seed and --opening "
                        "must be the same (--games may grow, to extend a measurement)")
    p.add_argument("--overwrite", action="store_true",
                   help="start afresh in an --out that holds the journal of another round robin (replacing it)")
    p.add_argument("--no-records", action="store_true", help="do not write a record per game")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--report", metavar="JOURNAL", default=None,
                   help="play nothing: print the table of the games in JOURNAL (a journal.jsonl, or the --out "
                        "directory that holds one), of a finished round robin or of one still running")
    return p


def _report(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    # Every option but --report and --no-progress is the journal's to say (or meaningless without play).
    given = [f"--{name.replace('_', '-')}" for name, value in vars(args).items()
             if name not in ("report", "no_progress") and value != parser.get_default(name)]
    if given:
        parser.error(f"--report reads everything from the journal and plays nothing: drop {' '.join(given)}")
    path = Path(args.report)
    if path.is_dir():
        path = path / "journal.jsonl"
    if not path.exists():
        parser.error(f"--report {args.report}: no such journal (give a journal.jsonl or the --out directory "
                     "of an arena run)")
    try:
        result = ArenaResult.from_journal(path)
    except JournalError as exc:
        parser.error(f"--report: {exc}")
    if not result.games:
        print(f"{path} holds no finished game yet ({result.game} {result.size}, agents: {' '.join(result.labels)})")
        return 0
    print(result.table())
    n = len(result.games)
    print(f"\n{n} game{'s' if n != 1 else ''} in the journal")
    return 0


def default_out(game: Game) -> Path:
    """A new output directory for a run of ``game``: ``runs/arena/<label>-<date>-<time>`` (``-2``, ``-3``... if
    that exists), so that running one command twice never meets the last run's journal."""
    base = os.path.join("runs", "arena", f"{game.label.replace(' ', '')}-{time.strftime('%Y%m%d-%H%M%S')}")
    out, n = Path(base), 1
    while out.exists() or out.is_symlink():
        n += 1
        out = Path(f"{base}-{n}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the arena from the command line; returns the exit status.

    Every mistake in the arguments (a bad agent spec or option, a missing
    checkpoint or one for another board, too few agents, a bad count or seed,
    an ``--out`` that cannot be a directory) is one message and exit status 2,
    before any game is played.
    """
    held: list[Path] = []
    try:
        return _main(argv, held)
    finally:
        for out in held:
            unlock_dir(out)


def _main(argv: Sequence[str] | None, held: list[Path]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.report is not None:
        return _report(parser, args)
    if not args.agents:
        parser.error("the following arguments are required: --agents")
    try:
        if args.game == "yinsh" and args.board_size not in (None, 0):
            raise ValueError(f"YINSH has one board: give no --board-size (or 0), got {args.board_size}")
        size = None if args.game == "yinsh" else (7 if args.board_size is None else args.board_size)
        g = make_game(args.game, size, args.variant)
        if len(args.agents) < 2:
            raise ValueError(f"--agents needs at least two agents, got {len(args.agents)}: {' '.join(args.agents)}")
        if args.games < 2 or args.games % 2:
            raise ValueError(f"--games must be even and >= 2 (half with each colour), got {args.games}")
        if args.games > MAX_GAMES:
            raise ValueError(f"--games must be at most {MAX_GAMES:,} (the most that can finish), got {args.games}")
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        if args.workers < 1:
            raise ValueError(f"--workers must be >= 1, got {args.workers}")
        if args.workers > MAX_WORKERS:
            raise ValueError(f"--workers must be at most {MAX_WORKERS}, got {args.workers}")
        try:
            check_opening(args.opening)
        except ValueError as exc:
            raise ValueError(f"--{exc}") from None
        agents = []
        for spec in args.agents:
            try:
                agent = load(spec)
            except (ValueError, OSError) as exc:
                raise ValueError(f"agent {spec!r}: {exc}") from exc
            check_board(agent, g, spec)
            agents.append(agent)
        if args.out is None and args.resume:
            raise ValueError("--resume continues the round robin in a directory: give its --out (without --out, "
                             "each run writes to a new runs/arena/<game><size>-<date>-<time>)")
        out = Path(args.out) if args.out is not None else default_out(g)
        check_can_make_dir(out, "--out")  # a broken symbolic link is named, not met as "File exists"
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out {out} is a file: give a directory for the results")
        if (out / "journal.jsonl").exists() and not (args.resume or args.overwrite):
            raise ValueError(f"--out {out} holds the journal of a round robin: add --resume to continue it (the "
                             "same agents, --seed and --opening), --overwrite to start afresh there, or choose "
                             "another --out")
        if args.resume and args.overwrite:
            raise ValueError("give --resume (continue the round robin) or --overwrite (start it afresh), not both")
        check_save_dir(out)  # results.json, records/...: a blocked path is found now, not after every game
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"--out {out} cannot be created: {exc}") from exc
        # One round robin a directory: a second one would write the same journal and results.
        # Released when this process ends, however it ends.
        lock_dir(out, "--out")
        held.append(out)
    except ValueError as exc:
        parser.error(str(exc))
    if args.out is None:
        print(f"results go to {out}/ (continue a stopped run with --out {out} --resume)", file=sys.stderr)
    if args.resume and not (out / "journal.jsonl").exists():
        print(f"--resume: no journal in {out} yet, so every game is played", file=sys.stderr)
    try:
        result = round_robin(agents, g, games_per_pair=args.games, seed=args.seed,
                             workers=args.workers, progress=not args.no_progress, labels=args.agents,
                             opening=args.opening, journal=out / "journal.jsonl", resume=args.resume)
    except JournalError as exc:
        parser.error(f"{exc} (the journal is --out/journal.jsonl: choose another --out)")
    except OSError as exc:  # a full disk while writing the journal: one line, not a traceback
        print(f"{parser.prog}: {report_os_error(exc, 'writing the journal')}; the games finished so far are in "
              f"{out / 'journal.jsonl'} (continue with --out {out} --resume)", file=sys.stderr)
        return 1
    print(result.table())
    in_opening = sum(1 for r in result.games if sum(r.moves) == 0)
    if in_opening:
        print(f"\nnote: {in_opening} of {len(result.games)} games ended inside the random opening "
              f"(--opening {args.opening}): the agents made no move in them; a shorter --opening leaves them "
              "the game", file=sys.stderr)
    try:
        path = result.save(out, records=not args.no_records)
    except (ValueError, OSError) as exc:  # the games stay in the journal: --resume saves them without playing
        why = report_os_error(exc, "saving the results") if isinstance(exc, OSError) else \
            f"the results could not be saved ({exc})"
        print(f"{parser.prog}: {why}; the games are in {out / 'journal.jsonl'}: clear the way and rerun with "
              f"--out {out} --resume to save them without playing again", file=sys.stderr)
        return 1 if isinstance(exc, OSError) else 2
    kept = f" ({result.resumed} of them from the journal)" if result.resumed else ""
    print(f"\n{len(result.games)} games{kept}; {len(result.games) - result.resumed} played in "
          f"{result.elapsed:.0f} s; results in {path}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
