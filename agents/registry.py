"""The agents by name: registration, spec strings (``"mcts:simulations=200"``) and :func:`load`.

Every player is registered by a ``"module:attribute"`` string and imported on
first use, so that heavy dependencies (torch, ray) load only when asked for;
:func:`register` adds players built elsewhere. Imports no player.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from .base import Agent

AgentFactory = Callable[..., Agent]
"""Anything that builds an :class:`Agent` from keyword options (usually the class)."""

_REGISTRY: dict[str, AgentFactory] = {}
LAZY: dict[str, str] = {
    "random": "agents.players.random_agent:RandomAgent",
    "greedy": "agents.players.greedy:GreedyAgent",
    "mcts": "agents.players.mcts:MCTSAgent",
    "az": "agents.players.az:AZAgent",
    "perfect": "agents.players.perfect:PerfectAgent",
    "ppo": "agents.players.network_player:PPOAgent",
    "rllib": "agents.train.rllib:load_player",
}
"""Names resolved on first use by importing ``module:attribute``."""


EXTRAS: dict[str, tuple[str, str]] = {"torch": ("agents", "PyTorch"), "ray": ("rllib", "Ray RLlib")}
"""Optional packages of the lazy agents: the top-level module -> (the project's extra that installs it,
its name), for a message that says what to install."""


def register(name: str, factory: AgentFactory, *, overwrite: bool = False) -> None:
    """Make ``load(name, **options)`` call ``factory(**options)``."""
    if not isinstance(name, str) or not name or any(ch in name for ch in ":,='\""):
        raise ValueError(f"an agent name must be a non-empty string without ':', ',', '=' or quotes, got {name!r}")
    if not callable(factory):
        raise ValueError(f"the factory of agent {name!r} must be callable (an Agent class or a function "
                         f"returning an Agent), got {type(factory).__name__}: {factory!r}")
    if not overwrite and (name in _REGISTRY or name in LAZY):
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
        except ImportError as exc:
            missing = (exc.name or "").split(".")[0]
            if missing in EXTRAS:
                extra, package = EXTRAS[missing]
                raise ValueError(f"agent {name!r} needs {package}, which is not installed ({exc}): "
                                 f"pip install \"odd-env[{extra}]\" (from a checkout: pip install -e \".[{extra}]\")"
                                 ) from exc
            raise ValueError(
                f"agent {name!r} is registered as {LAZY[name]!r} but could not be loaded: {exc}"
            ) from exc
        except AttributeError as exc:
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


__all__ = ["LAZY", "AgentFactory", "available", "load", "parse_spec", "register", "split_specs"]
