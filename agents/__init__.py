"""Players of Xodd and Yodd behind one interface, and a loader by name.

Every agent is an :class:`~agents.base.Agent`: ``agent.act(state)`` on a
:class:`~odd_env.games.odd.state.GameState`, or ``agent(observation, action_mask)``
on an environment observation, returns a legal action (docs/rules/xodd_yodd.md section 5).
Agents play both colours and both steps of a turn and repeat under a seed.

=========  ===============================================================
name       player
=========  ===============================================================
random     uniform over the legal actions (:mod:`agents.players.random_agent`)
greedy     the best whole turn by group count, one turn deep (:mod:`agents.players.greedy`)
mcts       Monte Carlo tree search over steps: rollouts, or a PPO network's priors and values
           (``network=PATH`` or a pretrained name) (:mod:`agents.players.mcts`)
perfect    exact play from the solver of small boards (:mod:`agents.players.perfect`; Xodd <= 4x4, Yodd <= base 3)
ppo        a PPO network: ``path=`` a checkpoint or ``pretrained=`` a shipped name (:mod:`agents.train.ppo`, lazily)
rllib      a network trained on Ray RLlib (:mod:`agents.train.rllib`, lazily; needs
           the ``rllib`` extra): the same kind of player as ``ppo``
=========  ===============================================================

Load one by name and options, or by the command-line spec form::

    agents.load("mcts", simulations=400, seed=1)
    agents.load("mcts:simulations=200,c=1.4")
    agents.load("mcts", network="runs/x5/last.pt", simulations=200)
    agents.load("ppo", pretrained="xodd9")          # a network shipped with the package
    agents.load("mcts", network="xodd9", simulations=200)

:func:`pretrained_networks` lists the shipped networks with their training
steps and strength tables, :func:`get_pretrained` describes one by name
(:mod:`agents.pretrained`).

Other modules add players with :func:`register`. A name may also be
registered lazily as ``"module:attribute"`` (see :data:`LAZY`), imported on
first use, so that heavy dependencies (torch) load only when asked for:
``agents/ppo.py`` only needs to define ``PPOAgent`` (an :class:`Agent` whose
constructor takes the options, e.g. ``path=``).

To play against an agent: ``python -m agents.play`` in a terminal (see
:mod:`agents.play`), or ``agents.play_widget(opponent="greedy", game="xodd")``
in Jupyter (:mod:`agents.play.widget`, imported on first use: it needs anywidget).

This package imports numpy and numba only; torch and ray are never imported here.
"""

from __future__ import annotations

from typing import Any

from .base import Agent, infer_geometry
from .players.greedy import GreedyAgent
from .players.mcts import MCTSAgent
from .players.perfect import PerfectAgent
from .pretrained import PretrainedNetwork, get_pretrained, pretrained_networks
from .players.random_agent import RandomAgent
from .registry import LAZY, AgentFactory, available, load, parse_spec, register, split_specs

def __getattr__(name: str) -> Any:
    # play_widget needs anywidget (the notebooks extra): imported on first use only.
    if name == "play_widget":
        from .play.widget import play_widget

        globals()[name] = play_widget
        return play_widget
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Agent",
    "AgentFactory",
    "GreedyAgent",
    "LAZY",
    "MCTSAgent",
    "PerfectAgent",
    "PretrainedNetwork",
    "RandomAgent",
    "available",
    "get_pretrained",
    "infer_geometry",
    "load",
    "parse_spec",
    "pretrained_networks",
    "register",
    "split_specs",
]
