"""A trained policy-value network as a player (``agents.load("ppo", path=...)`` or ``pretrained=``):
:class:`PPOAgent`, whatever trained the network (:mod:`agents.train.ppo`, a refit)."""

from __future__ import annotations

import contextlib
import inspect
import os
from typing import Any, Iterator, Sequence

import numpy as np
import torch

from odd_env.game import Position, make as make_game
from odd_env import symmetries as board_symmetries

from ..train import checkpoint as ckpt_io
from ..base import MAX_THREADS, Agent, check_bool, check_int, check_position
from ..train.network import PolicyValueNet, check_device, masked_logits


# ============================================================ the agent
@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` torch CPU threads, then restore the previous count
    (None: leave it alone). Torch's thread count is per process."""
    before = torch.get_num_threads()
    if threads is None or threads == before:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class PPOAgent(Agent):
    """A trained network as a player: ``agents.load("ppo", path="run/last.pt")``.

    ``path`` is a checkpoint file, or (when no such file exists) the name of a
    shipped network, as ``pretrained=`` takes it.

    A per-size network plays its board alone (:attr:`game` is that board). A
    size-general one (``general`` in its checkpoint) plays every board size of
    its game: :attr:`game` is None, as for the untrained players, so the arena,
    the play session and the Gymnasium env give it their board, and
    :meth:`cannot_play` refuses other games.

    ``greedy=True`` plays the most probable legal action; otherwise it samples
    from the masked policy with the agent's seed. ``threads`` is the number
    of torch CPU threads of each move's forward pass (1 by default: one
    position at a time runs fastest on one thread, and torch's default of one
    thread per core made a move tens to hundreds of times slower); None uses
    the process's setting. ``symmetries=k`` averages the policy and value over
    the first k images of each position under the board's symmetry group
    (:func:`odd_env.symmetry.symmetries`: up to 8 on Xodd, 12 on Yodd and
    YINSH), one network call for all of them; 1 (default) uses the position
    as it is. The checkpoint is verified as :func:`agents.train.checkpoint.load` does.
    """

    name = "ppo"

    def __init__(self, path: str | os.PathLike | None = None, network: PolicyValueNet | None = None,
                 greedy: bool = True, seed: int | None = None, device: str = "cpu", threads: int | None = 1,
                 pretrained: str | None = None, symmetries: int = 1):
        super().__init__(seed=seed)
        if sum(x is not None for x in (path, network, pretrained)) != 1:
            raise ValueError("ppo: give exactly one of path= (a checkpoint), pretrained= (a shipped network's "
                             "name: agents.pretrained_networks() lists them) or network= (a PolicyValueNet)")
        self.greedy = check_bool("ppo option greedy", greedy)
        self.threads = None if threads is None else check_int("ppo option threads", threads, 1, MAX_THREADS)
        self.device = check_device(device, "ppo option device")
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"ppo option path must be a checkpoint file name, got {path!r} "
                             f"(in a spec, quote a name that reads as a number: path=\"{path}\")")
        if isinstance(path, str) and not os.path.isfile(path):
            from ..pretrained import pretrained_names

            if path in pretrained_names():  # a shipped network's name, as every checkpoint option takes
                pretrained, path = path, None
            else:
                raise FileNotFoundError(f"no checkpoint at {path}, and no shipped network is named so "
                                        f"({', '.join(pretrained_names()) or 'none shipped'})")
        self.pretrained = pretrained
        """The shipped network's name when loaded with ``pretrained=`` (or ``path=`` a name), else None."""
        if pretrained is not None:
            from ..pretrained import load_pretrained

            network, path = load_pretrained(pretrained)
        elif path is not None:
            network = ckpt_io.load_network(path)
        elif not isinstance(network, PolicyValueNet):
            raise ValueError(f"ppo option network must be a PolicyValueNet, got {type(network).__name__}")
        self.path = None if path is None else str(path)
        self._sha256 = None if path is None else str(ckpt_io.read_metadata(path)["sha256"])
        self.network = network.to(self.device).eval()
        cfg = self.network.config
        board = make_game(cfg.game, cfg.board_size or None, cfg.variant)
        self.general = cfg.general
        """Whether the network is size-general: it plays every board size of its game."""
        # A per-size network is tied to its board; a general one to no board (Agent.game None: the
        # arena, the play session and the Gymnasium env then ask cannot_play, and it plays the game it is given).
        self.game = None if self.general else board
        self.geometry = None if self.general else board.extra.get("geometry")
        self._reference = board
        self._views_of: dict[Any, list[Any]] = {}
        self.set_symmetries(symmetries)

    @property
    def reference_game(self) -> Any:
        """The board the network was made for: its game (a size-general network plays every size of it)."""
        return self._reference

    def cannot_play(self, game: Any) -> str | None:
        """Why the network cannot play ``game``: another game or variant (a size-general network plays
        every board size of its own game; a per-size one only its board, which :func:`check_board` checks)."""
        cfg = self.network.config
        if self.general and not cfg.plays(game):
            return f"its size-general network plays {self._reference.name}" + (
                f" {cfg.variant}" if cfg.variant else "") + f" (any size), not {game.label}"
        return None

    def set_symmetries(self, symmetries: int, option: str = "ppo option symmetries") -> None:
        """Average over the first ``symmetries`` maps of the board's group; ValueError naming ``option``
        (the agent whose option it is, e.g. a search passing its own on) if out of range."""
        group = board_symmetries(self._reference)  # (of the same order on every board of a game)
        if isinstance(symmetries, bool) or not isinstance(symmetries, (int, np.integer)) \
                or not 1 <= symmetries <= len(group):
            raise ValueError(f"{option} must be an integer from 1 (the position as it is) to "
                             f"{len(group)} (every symmetry of the {self._reference.label} board), got {symmetries!r}")
        self.symmetries = int(symmetries)
        """Views averaged per position: the first ``symmetries`` maps of the board's group."""
        self._views_of = {}

    def _views(self, game: Any) -> list[Any]:
        """The first :attr:`symmetries` maps of ``game``'s board group (built once per board)."""
        if game not in self._views_of:
            self._views_of[game] = board_symmetries(game)[:self.symmetries]
        return self._views_of[game]

    @property
    def network_sha256(self) -> str | None:
        """The sha256 of the file the network was loaded from (None for a ``network=`` object)."""
        return self._sha256

    @torch.no_grad()
    def policy_value(self, state: Position) -> tuple[np.ndarray, float]:
        """Masked action probabilities and the value for the player to act (with ``symmetries``
        > 1: the mean over the position's images of the probabilities mapped back, and of the values)."""
        return self.policy_values([state])[0]

    @torch.no_grad()
    def policy_values(self, states: Sequence[Position]) -> list[tuple[np.ndarray, float]]:
        """:meth:`policy_value` of several positions, in one network call."""
        if not states:
            return []
        for state in states:
            if getattr(state, "game", None) is None:
                raise ValueError(f"{self.label}: a game position (a GameState or YinshState) is needed, "
                                 f"got {type(state).__name__}")
            if self.game is not None and state.game is not self.game:
                raise ValueError(f"this network plays {self.game.label}, not {state.game.label}")
            if self.game is None and not self.network.config.plays(state.game):
                raise ValueError(f"{self.label}: {self.cannot_play(state.game)}")
        game = states[0].game
        if any(s.game is not game for s in states):  # one network call takes planes of one shape
            raise ValueError(f"policy_values takes positions of one board, got "
                             f"{sorted({s.game.label for s in states})}")
        obs = np.stack([s.observation() for s in states])
        probs, value = self.evaluate_planes(obs, np.stack([s.legal_action_mask() for s in states]), game)
        return [(probs[i], float(value[i])) for i in range(len(states))]

    @torch.no_grad()
    def evaluate_planes(self, planes: np.ndarray, masks: np.ndarray,
                        game: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`policy_values` of positions given as their planes ``(N, C, H, W)`` (seen by the player
        to decide) and legal-action masks ``(N, A)``: masked probabilities ``float32[N, A]`` and values
        ``float32[N]`` (what a search's evaluator needs; the symmetry views averaged as there).
        ``game``: the board of the planes (default: the network's; needed with ``symmetries`` > 1 for a
        size-general network, which has no board of its own)."""
        mask = torch.from_numpy(np.asarray(masks).astype(bool)).to(self.device)
        k, n = self.symmetries, len(planes)
        game = self.game if game is None else game
        if k > 1:  # view v of position i at row v * n + i
            if game is None:
                raise ValueError(f"{self.label}: a size-general network averages symmetries of a board: "
                                 f"give evaluate_planes the game of the planes (game=)")
            views = self._views(game)
            planes = np.concatenate([view.map_planes(planes) for view in views])
        with torch_threads(self.threads):
            logits, value = self.network(torch.from_numpy(np.ascontiguousarray(planes)).to(self.device))
        if k > 1:  # each view's logits back on the position's actions: logit of a = view's logit of image(a)
            back = torch.from_numpy(np.stack([view.actions for view in views])).to(self.device)
            logits = torch.gather(logits.view(k, n, -1), 2, back[:, None, :].expand(k, n, -1))
            probs = torch.softmax(masked_logits(logits, mask.expand(k, n, -1)), dim=-1).mean(0)
            value = value.view(k, n).mean(0)
        else:
            probs = torch.softmax(masked_logits(logits, mask), dim=-1)
        return probs.float().cpu().numpy(), value.float().cpu().numpy()

    def act(self, state: Position) -> int:
        """The network's move for the player to act."""
        check_position(self.label, state)
        probs, _ = self.policy_value(state)
        if self.greedy:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    @property
    def options(self) -> dict[str, Any]:
        """Options that rebuild this agent."""
        where = {"pretrained": self.pretrained} if self.pretrained is not None else {"path": self.path}
        return {**where, "greedy": self.greedy, "seed": self.seed, "device": str(self.device),
                "threads": self.threads, "symmetries": self.symmetries}

    @property
    def label(self) -> str:
        """``ppo:pretrained=NAME`` or ``ppo:path=PATH`` (``ppo`` for a network given in memory), then the
        options that differ from the defaults: the spec that rebuilds it."""
        params = inspect.signature(PPOAgent.__init__).parameters  # (the constructor's own defaults)
        defaults = {k: params[k].default for k in ("greedy", "device", "threads", "symmetries")}
        where = ([f"pretrained={self.pretrained}"] if self.pretrained is not None
                 else [f"path={self.path}"] if self.path is not None else [])
        parts = where + [f"{k}={v}" for k, v in self.options.items() if k in defaults and v != defaults[k]]
        return f"{self.name}:" + ",".join(parts) if parts else self.name

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["network"] = (self.network.config, {k: v.cpu() for k, v in self.network.state_dict().items()})
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        config, weights = state["network"]
        state["network"] = PolicyValueNet.from_weights(config, weights).to(state["device"]).eval()
        self.__dict__.update(state)
        if self.threads is not None:
            # Unpickled in an arena worker, a process of its own: set its thread count once.
            torch.set_num_threads(self.threads)
