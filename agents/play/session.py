"""One game between a person and an agent: the logic under both play front ends.

:class:`PlaySession` holds the game: the position, every action played (for
undo and the record), which colour the person plays and the agent that
replies. The terminal (:mod:`agents.play`) and the Jupyter widget
(:mod:`agents.play.widget`) only read it and call its methods::

    session = PlaySession("yodd", 4, opponent="mcts:simulations=200", human="black", seed=1)
    session.play_text("Bc4")          # a step of the person; the agent replies when the turn passes
    session.play_text("Wd5")
    session.undo()                    # take back the person's last move as entered (Wd5), and the replies
    session.hint()                    # what the hint agent (greedy) would play here, as the person types it
    session.save("game.txt")          # the record, which GameRecord.load reads back

What differs between games (reading a move, naming an action, the status
line, the pictures, the record) is the game's front end
(:class:`odd_env.common.front.FrontEnd`, from ``odd_env.game.make(...).front_end()``).
The session itself only uses the position interface (``to_move``,
``is_terminal``, ``legal_action_mask()``, ``apply()``, ``copy()``) and
:mod:`agents`: a new game registered with :mod:`odd_env.game` plays here with
nothing added.

This module sets a session up (the game, the board, the colours, the agents) and takes the
person's moves; its parts are :mod:`agents.play.history` (the moves, undo),
:mod:`agents.play.turns` (the agent's turn, the hints), :mod:`agents.play.records`
(reading and writing records) and :mod:`agents.play.reading` (what the front ends read).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from odd_env._files import write_atomic
from odd_env.game import available_games, make as make_game

from ..base import Agent, check_int
from .history import GameHistory, Move
from .reading import SessionReading
from .records import load_record, session_record
from .turns import HintAgents, agent_turn, load_agent


DEFAULT_SIZES = {"xodd": 7, "yodd": 5}
"""Board size of each game when none is given (small enough for a game of a few minutes); other
games play at their default size."""


def adapter(game: str, size: int | None = None, variant: str = "") -> Any:
    """The front end (:class:`odd_env.common.front.FrontEnd`) of ``game`` at ``size`` (default
    :data:`DEFAULT_SIZES`, else the game's own) and ``variant``; ValueError naming the games."""
    if not isinstance(game, str) or game not in available_games():
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(available_games())}")
    return make_game(game, DEFAULT_SIZES.get(game) if size is None else size, variant).front_end()


class PlaySession(SessionReading):
    """A game of a person against an agent: position, history (for undo), the agent's replies, the record.

    Args:
        game: ``"xodd"``, ``"yodd"`` or ``"yinsh"`` (any registered game);
            default: the agent's game when it is built for one (a network), else xodd.
        board_size: the board size; default: the agent's board when it has
            one, else :data:`DEFAULT_SIZES` (YINSH has one board: none).
        opponent: an agent spec (``"mcts:simulations=200"``) or an
            :class:`~agents.base.Agent`; default: the adapter's
            :attr:`~odd_env.common.front.FrontEnd.default_agent` (greedy; for YINSH, mcts).
        human: the person's colour: ``"black"``, ``"white"`` (or 0, 1) or
            ``"random"`` (drawn with ``seed``).
        seed: seeds the agent and the random colour, so a game repeats.
        hint: the agent spec that :meth:`hint` asks by default (default:
            the adapter's :attr:`~odd_env.common.front.FrontEnd.default_agent`).
        actions: actions to replay first (a saved game to go on with).
        variant: the game's variant (``"blitz"`` for YINSH; default: the
            agent's when it is built for one game, else the standard game).

    The agent replies at once whenever the turn passes to it (also on
    construction when it plays first). Bad arguments raise ValueError.
    """

    def __init__(
        self,
        game: str | None = None,
        board_size: int | None = None,
        opponent: str | Agent | None = None,
        human: str | int | None = None,
        seed: int | None = None,
        hint: str | None = None,
        actions: Sequence[int] = (),
        variant: str | None = None,
    ):
        seed = None if seed is None else check_int("seed", seed, 0)
        if opponent is None:  # the game's default agent: the game must be known without one
            self.adapter = adapter(game or "xodd", board_size, variant or "")
            opponent = self.adapter.default_agent
        agent = load_agent(opponent, "the opponent") if isinstance(opponent, str) else opponent
        if not isinstance(agent, Agent):
            raise ValueError(f"opponent must be an agent spec or an Agent, got {type(opponent).__name__}")
        own = getattr(agent, "game", None)  # the one game of a network; None for the others
        if game is None:  # the network's game; else the first game the agent plays (a size-general network's)
            game = own.name if own is not None else next(
                (name for name in available_games() if agent.cannot_play(make_game(name)) is None), "xodd")
        if own is not None and own.name == game:
            tied = getattr(agent, "geometry", None) is not None or agent.network_sha256 is not None
            if board_size is None and tied:
                board_size = own.size  # a network's board, or a search's network's (an agent of a game's default board sets none)
            if variant is None:
                variant = own.variant
        self.adapter = adapter(game, board_size, variant or "")
        reason = self.adapter.fits(agent)
        if reason is not None:
            raise ValueError(f"the opponent cannot play this board: {reason}")
        self.opponent = agent
        self.opponent_label = opponent if isinstance(opponent, str) else agent.label
        self.seed = seed
        self.hint_spec = hint or self.adapter.default_agent
        self._hints = HintAgents(self.adapter)
        self._hints.get(self.hint_spec)  # a bad spec is an error now, not at the first hint
        self.human = self._colour(self.adapter.default_human if human is None else human, seed)
        self._start(actions)

    def _colour(self, human: str | int, seed: int | None) -> int:
        names = self.adapter.player_names
        if human == "random":
            return int(np.random.default_rng(seed).integers(2))
        if isinstance(human, str) and human.lower() in names:
            return names.index(human.lower())
        if not isinstance(human, bool) and human in (0, 1):
            return int(human)
        raise ValueError(f"human must be {names[0]!r}, {names[1]!r} or 'random' (or 0, 1), got {human!r}")

    def _start(self, actions: Sequence[int]) -> None:
        self._game = GameHistory(self.adapter)
        self._game.replay(actions, self.human)
        self.opponent.reset(self.seed)
        self.last_reply: list[Move] = []
        """The agent's moves since the person's last one."""
        self.reply()

    # ------------------------------------------------------------ playing
    def play(self, action: int, reply: bool = True) -> list[Move]:
        """Play the person's ``action``, then (``reply``) the agent's replies; returns the moves made.

        ValueError (nothing changes) when it is not the person's turn or the
        action is illegal, saying why. With ``reply=False`` the front end
        calls :meth:`reply` itself (to show the person's move first).
        """
        self._check_turn()
        message = self.adapter.illegal(self._state, action)
        if message is not None:
            raise ValueError(message)
        return self._play([int(action)], reply)

    def play_text(self, text: str, reply: bool = True) -> list[Move]:
        """Play the move(s) written in ``text`` in the game's notation, then (``reply``) the agent's replies.

        ValueError (nothing changes) if the text is malformed, a move in it is
        illegal, or it is not the person's turn.
        """
        self._check_turn()
        return self._play(self.adapter.parse(self._state, text), reply)

    def click(self, point: int, alternative: bool = False, reply: bool = True) -> list[Move]:
        """Play a click on ``point`` (``alternative``: the opponent's colour), then (``reply``) the agent's replies."""
        self._check_turn()
        return self.play(self.adapter.click_action(self._state, point, alternative), reply)

    def button(self, reply: bool = True) -> list[Move]:
        """Play the move that has a button (pass or end turn), then (``reply``) the agent's replies."""
        self._check_turn()
        found = self.adapter.button_action(self._state)
        if found is None:
            # Every game's last action is its pass / end turn (the point actions come first).
            raise ValueError(self.adapter.illegal(self._state, len(self._state.legal_action_mask()) - 1))
        return self.play(found[1], reply)

    def _play(self, actions: list[int], reply: bool) -> list[Move]:
        self._game.begin_entry()  # what one line or click played: undo takes it back whole
        made = [self._game.apply(a, by_agent=False) for a in actions]
        self.last_reply = []
        return made + (self.reply() if reply else [])

    def reply(self) -> list[Move]:
        """Let the agent act until it is the person's turn or the game is over; returns its moves."""
        self.last_reply = agent_turn(self.opponent, self.opponent_label, self._game, self.human)
        return self.last_reply

    def _check_turn(self) -> None:
        if self.is_over:
            raise ValueError(f"the game is over: {self.adapter.result(self._state)}; undo or start a new game")
        if not self.your_turn:
            raise ValueError(f"it is {self.opponent_label}'s turn, not yours")

    def undo(self) -> list[Move]:
        """Take back the person's last move as entered (all that one line or one click played: ``E5-E9``,
        ``Bc4,Wd5``) and the agent's replies after it; returns the moves taken back.

        ValueError (nothing changes) when the person has not moved yet.
        """
        if not self.can_undo:
            raise ValueError("nothing to undo: you have not moved yet")
        undone = self._game.undo()
        self.opponent.reset()  # drop plans and search trees of the abandoned line
        self.last_reply = []
        return undone

    def new_game(self, human: str | int | None = None) -> None:
        """Start again from the empty board (``human``: change colour; default the same)."""
        if human is not None:
            self.human = self._colour(human, self.seed)
        self._start(())

    def hint(self, spec: str | None = None) -> tuple[int, str]:
        """What agent ``spec`` (default :attr:`hint_spec`) would play for the person now: (its first
        action, the move's name as the prompt takes it). A move in two actions is asked whole and
        named whole (YINSH: the ring and where it goes, ``E4-E10``)."""
        self._check_turn()
        return self._hints.hint(spec or self.hint_spec, self._state, self.seed)

    # ------------------------------------------------------------ records
    def record_text(self) -> str:
        """The game's record, the players in a comment on the first line."""
        return session_record(self.adapter, self.actions, self.human, self.opponent_label)

    def save(self, path: str | os.PathLike) -> Path:
        """Write :meth:`record_text` to ``path`` (folders made as needed); returns the path."""
        return write_atomic(path, self.record_text(), what="record path")

    @classmethod
    def from_record(cls, path: str | os.PathLike, **kwargs: Any) -> PlaySession:
        """A session going on from a saved record (the other arguments as for the constructor)."""
        game, size, variant, actions = load_record(path)
        return cls(game, size or None, actions=actions, variant=variant, **kwargs)

    def __repr__(self) -> str:
        return f"PlaySession({self.adapter.label}, {self.players()}; {self.status()})"


__all__ = ["DEFAULT_SIZES", "Move", "PlaySession", "adapter", "load_record"]
