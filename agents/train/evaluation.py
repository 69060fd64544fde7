"""The evaluation of a training run: the network's win rate against fixed opponents, with the arena,
on each board size the run trains on."""

from __future__ import annotations

import copy
from typing import Sequence

from odd_env.game import Game

from ..base import Agent, check_int, plays
from ..players.network_player import PPOAgent
from .network import PolicyValueNet


def metric_name(spec: str, game: Game, sizes: int) -> str:
    """The metric of the win rate against ``spec``: ``win_rate/SPEC``, and ``win_rate/SPEC@SIZE``
    in a run over ``sizes`` > 1 board sizes."""
    return f"win_rate/{spec}" + (f"@{game.size}" if sizes > 1 else "")


def evaluate(net: PolicyValueNet, games: Sequence[Game], opponents: Sequence[tuple[str, Agent]], n_games: int,
             seed: int, threads: int, progress: bool = False, opening: int = 0) -> dict[str, float]:
    """Win rate of ``net`` (its most probable legal action) against each opponent ``(spec, agent)``
    on each of ``games``, ``n_games`` games per pair (half with each colour, seeded by ``seed``; each
    opened by ``opening`` random legal actions, shared by the two games that swap colours),
    by :func:`metric_name`; an opponent that does not play a board (a per-size network on another
    size) is left out on that board.

    The games are played on the CPU with ``threads`` torch threads, also when training on a GPU
    (torch's default there, every core, crowds a machine shared with other processes).
    """
    from ..arena import round_robin

    n_games = check_int("evaluate games", n_games, 2)
    if n_games % 2:
        raise ValueError(f"evaluate games must be even (half with each colour), got {n_games}")
    player = PPOAgent(network=copy.deepcopy(net).cpu(), greedy=True, threads=threads)
    results = {}
    for game in games:
        for spec, agent in opponents:
            if not plays(agent, game):  # a per-size network is measured on its own board only
                continue
            res = round_robin([player, agent], game, games_per_pair=n_games, seed=seed, progress=progress,
                              labels=["ppo", spec], opening=opening)
            rate, _, _, _ = res.win_rate(0, 1)
            results[metric_name(spec, game, len(games))] = float(rate)
    return results
