"""Players of Xodd and Yodd behind one interface, and a loader by name.

Every agent is an :class:`~agents.base.Agent`: ``agent.act(state)`` on a
:class:`~odd_env.core.state.GameState`, or ``agent(observation, action_mask)``
on an environment observation, returns a legal action (docs/rules/xodd_yodd.md section 5).
Agents play both colours and both steps of a turn and repeat under a seed.

=========  ===============================================================
name       player
=========  ===============================================================
random     uniform over the legal actions (:mod:`agents.random_agent`)
greedy     the best whole turn by group count, one turn deep (:mod:`agents.greedy`)
mcts       Monte Carlo tree search over steps: rollouts, or a PPO network's priors and values
           (``network=PATH`` or a pretrained name) (:mod:`agents.mcts`)
ppo        a PPO network: ``path=`` a checkpoint or ``pretrained=`` a shipped name (:mod:`agents.ppo`, lazily)
perfect    exact play from the solver of small boards (:mod:`agents.perfect`; Xodd <= 4x4, Yodd <= base 3)
rllib      a network trained on Ray RLlib (:mod:`agents.rllib`, lazily; needs
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
in Jupyter (:mod:`agents.widget`, imported on first use: it needs anywidget).

This package imports numpy and numba only; torch and ray are never imported here.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from .base import Agent, infer_geometry
from .greedy import GreedyAgent
from .mcts import MCTSAgent
from .perfect import PerfectAgent
from .pretrained import PretrainedNetwork, get_pretrained, pretrained_networks
from .random_agent import RandomAgent

AgentFactory = Callable[..., Agent]
"""Anything that builds an :class:`Agent` from keyword options (usually the class)."""

_REGISTRY: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "mcts": MCTSAgent,
    "perfect": PerfectAgent,
}
LAZY: dict[str, str] = {"ppo": "agents.ppo:PPOAgent", "rllib": "agents.rllib:load_player"}
"""Names resolved on first use by importing ``module:attribute``."""


def register(name: str, factory: AgentFactory, *, overwrite: bool = False) -> None:
    """Make ``load(name, **options)`` call ``factory(**options)``."""
    if not isinstance(name, str) or not name or any(ch in name for ch in ":,='\""):
        raise ValueError(f"an agent name must be a non-empty string without ':', ',', '=' or quotes, got {name!r}")
    if not callable(factory):
        raise ValueError(f"the factory of agent {name!r} must be callable (an Agent class or a function "
                         f"returning an Agent), got {type(factory).__name__}: {factory!r}")
    if not overwrite and name in _REGISTRY:
        raise ValueError(f"an agent named {name!r} is already registered")
    _REGISTRY[name] = factory
    LAZY.pop(name, None)


def available() -> list[str]:
    """The registered names (lazy ones included)."""
    return sorted(set(_REGISTRY) | set(LAZY))


def _split_commas(text: str, what: str) -> list[str]:
    """``text`` split at the commas outside single or double quotes, each piece stripped."""
    pieces, start, quote = [], 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            pieces.append(text[start:i].strip())
            start = i + 1
    if quote:
        raise ValueError(f"unclosed {quote} quote in {what}")
    pieces.append(text[start:].strip())
    return pieces


def _parse_value(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]  # quoted: a string as it is (a name that reads as a number, a comma)
    low = text.lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,key=value"`` into the name and typed options.

    Values become int, float, bool (``true``/``false``), None (``none``) or
    stay strings: ``parse_spec("mcts:simulations=200,c=1.4")`` is
    ``("mcts", {"simulations": 200, "c": 1.4})``. A value in single or double
    quotes stays the string inside them, commas included
    (``ppo:path="runs/2024"``). A key given twice is a ValueError.
    """
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string like 'greedy' or 'mcts:simulations=200', "
                         f"got {type(spec).__name__}: {spec!r}")
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, _split_commas(rest, f"agent spec {spec!r}")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"malformed option {item!r} in agent spec {spec!r}: expected key=value")
        if key in options:
            raise ValueError(f"option {key!r} is given twice in agent spec {spec!r}")
        options[key] = _parse_value(value)
    if not name:
        raise ValueError(f"agent spec {spec!r} has no name")
    return name, options


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of agent specs, keeping each spec's own options together.

    A piece with ``=`` and no ``:`` before it continues the previous spec
    (commas inside quotes do not split):
    ``split_specs("random,mcts:simulations=100,c=1.4")`` is
    ``["random", "mcts:simulations=100,c=1.4"]``.
    """
    if not isinstance(text, str):
        raise ValueError(f"an agent list is a string like 'random,mcts:simulations=100', "
                         f"got {type(text).__name__}: {text!r}")
    specs: list[str] = []
    for piece in _split_commas(text, f"agent list {text!r}"):
        if not piece:
            continue
        if "=" in piece and ":" not in piece.partition("=")[0]:
            if not specs:
                raise ValueError(f"agent list {text!r} starts with an option ({piece!r}), not an agent name")
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def _factory(name: str) -> AgentFactory:
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in LAZY:
        module, _, attr = LAZY[name].partition(":")
        try:
            factory = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(
                f"agent {name!r} is registered as {LAZY[name]!r} but could not be loaded: {exc}"
            ) from exc
        _REGISTRY[name] = factory
        return factory
    raise ValueError(f"unknown agent {name!r}; available: {', '.join(available())}")


def load(spec: str, **options: Any) -> Agent:
    """Build an agent from a name or a spec string, with keyword options on top.

    ``load("mcts", simulations=400, seed=1)``, ``load("mcts:simulations=200")``,
    ``load("ppo", path="runs/ppo.pt")``.
    """
    name, spec_options = parse_spec(spec)
    spec_options.update(options)
    factory = _factory(name)
    _check_options(name, factory, spec_options)
    return factory(**spec_options)


def _check_options(name: str, factory: AgentFactory, options: dict[str, Any]) -> None:
    """Raise ValueError naming the agent's options when ``options`` do not fit its factory.

    Checked against the signature before the call, so that a TypeError raised
    inside a factory is not mistaken for a bad option.
    """
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a factory without an introspectable signature
        return
    try:
        signature.bind(**options)
    except TypeError as exc:
        accepted = [p.name for p in signature.parameters.values()
                    if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        raise ValueError(
            f"bad options for agent {name!r}: {exc}; its options are {', '.join(accepted) or '(none)'}"
        ) from None


def __getattr__(name: str) -> Any:
    # play_widget needs anywidget (the notebooks extra): imported on first use only.
    if name == "play_widget":
        from .widget import play_widget

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
