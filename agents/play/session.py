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
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from odd_env._files import RECORD_LIMIT, check_path, read_bytes, write_atomic
from odd_env.game import available_games, make as make_game

from ..registry import load
from ..base import Agent, check_int


DEFAULT_SIZES = {"xodd": 7, "yodd": 5}
"""Board size of each game when none is given (small enough for a game of a few minutes); other
games play at their default size."""


def adapter(game: str, size: int | None = None, variant: str = "") -> Any:
    """The front end (:class:`odd_env.common.front.FrontEnd`) of ``game`` at ``size`` (default
    :data:`DEFAULT_SIZES`, else the game's own) and ``variant``; ValueError naming the games."""
    if not isinstance(game, str) or game not in available_games():
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(available_games())}")
    return make_game(game, DEFAULT_SIZES.get(game) if size is None else size, variant).front_end()


def load_record(path: str | os.PathLike) -> tuple[str, int, str, list[int]]:
    """(game, size, variant, actions) of a saved record of any game, told by its header line's first
    word; ValueError naming the file and line if it is bad, OSError if it cannot be read."""
    path = check_path(path, "record path")
    text = read_bytes(path, "record path", RECORD_LIMIT).decode("utf-8-sig", errors="replace")
    words = next((w for w in (line.split("#", 1)[0].split() for line in text.splitlines()) if w), [""])
    name = words[0].lower()
    if name not in available_games():
        raise ValueError(f"{os.fspath(path)}: not a game record: its first line must name a game "
                         f"({', '.join(available_games())}), got {words[0]!r}")
    record = make_game(name).load_record(path)
    game = record.state.game
    return game.name, game.size, game.variant, list(record.actions)


# ---------------------------------------------------------------- the session
def _load(spec: str, what: str) -> Agent:
    """``agents.load(spec)``; a file that cannot be read (a checkpoint) is a ValueError too."""
    try:
        return load(spec)
    except OSError as e:
        raise ValueError(f"cannot load {what} {spec!r}: {e}") from None


@dataclass(frozen=True)
class Move:
    """One action as played: by which player, whether the agent played it, and its name; ``continued``:
    it only begins a move that the player's next action ends and names whole (YINSH's ring chosen,
    ``E4-``, then ``E4-E10``; see :meth:`odd_env.common.front.FrontEnd.continued`)."""

    player: int
    action: int
    name: str
    by_agent: bool
    continued: bool = False


class PlaySession:
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
        agent = _load(opponent, "the opponent") if isinstance(opponent, str) else opponent
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
        self._hint_agents: dict[str, Agent] = {}
        self._hint_agent(self.hint_spec)  # a bad spec is an error now, not at the first hint
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
        if isinstance(actions, (str, bytes)) or not hasattr(actions, "__iter__"):
            raise ValueError(f"actions must be a sequence of action numbers (the game to go on with), "
                             f"got {type(actions).__name__}: {actions!r}")
        self._state = self.adapter.new_state()
        self._moves: list[Move] = []
        self._history: list[Any] = []  # the position before each move, for undo
        self._entries: list[int] = []  # where each of the person's entries (a line, a click) begins in _moves
        for i, a in enumerate(actions):
            message = self.adapter.illegal(self._state, a)
            if message is not None:
                raise ValueError(f"move #{i + 1} of the game to go on with: {message}")
            by_agent = self.to_move != self.human
            previous = self._moves[-1] if self._moves else None
            # A replayed game's entries are not known: each of the person's moves is one, a ring chosen
            # and its destination together.
            if not by_agent and not (previous is not None and previous.continued and not previous.by_agent):
                self._entries.append(len(self._moves))
            self._apply(int(a), by_agent=by_agent)
        self.opponent.reset(self.seed)
        self.last_reply: list[Move] = []
        """The agent's moves since the person's last one."""
        self.reply()

    # ------------------------------------------------------------ reading
    @property
    def state(self) -> Any:
        """A copy of the current position."""
        return self._state.copy()

    @property
    def moves(self) -> tuple[Move, ...]:
        """Every move played so far, in order."""
        return tuple(self._moves)

    @property
    def actions(self) -> list[int]:
        """The actions played so far (replaying them from the start gives :attr:`state`)."""
        return [m.action for m in self._moves]

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return bool(self._state.is_terminal)

    @property
    def to_move(self) -> int:
        """The player to act (0 or 1)."""
        return int(self._state.to_move)

    @property
    def your_turn(self) -> bool:
        """True when the person is to act."""
        return not self.is_over and self.to_move == self.human

    @property
    def can_undo(self) -> bool:
        """True when the person has a move to take back."""
        return bool(self._entries)

    @property
    def human_name(self) -> str:
        """The person's colour."""
        return self.adapter.player_names[self.human]

    @property
    def agent_name(self) -> str:
        """The agent's colour."""
        return self.adapter.player_names[1 - self.human]

    def players(self) -> str:
        """``"you (black) against greedy (white)"``."""
        return f"you ({self.human_name}) against {self.opponent_label} ({self.agent_name})"

    def status(self) -> str:
        """One line: whose turn and which decision, or the result."""
        if self.is_over:
            return f"game over: {self.adapter.result(self._state)} ({self.outcome()})"
        who = f"your turn ({self.human_name})" if self.your_turn else f"{self.opponent_label} to play"
        return f"{who}, {self.adapter.decision(self._state)}"

    def outcome(self) -> str | None:
        """``"you won"`` / ``"you lost"`` / ``"a draw"`` once the game is over, else None."""
        if not self.is_over:
            return None
        r = self._state.returns()[self.human]
        return "you won" if r > 0 else "you lost" if r < 0 else "a draw"

    def describe(self, moves: Sequence[Move]) -> str:
        """The names of ``moves`` joined by ``", "`` (``"Wd4, Bc5"``); a move in two actions by its
        whole name (YINSH: ``"H7-F5"``, not ``"H7-, H7-F5"``)."""
        return ", ".join(m.name for i, m in enumerate(moves)
                         if not (m.continued and i + 1 < len(moves) and moves[i + 1].player == m.player))

    def describe_undone(self, undone: Sequence[Move]) -> str:
        """What :meth:`undo` took back: ``"took back your Bc3 and greedy's Wd4, end"``."""
        yours = self.describe([m for m in undone if not m.by_agent])
        theirs = self.describe([m for m in undone if m.by_agent])
        return f"took back your {yours}" + (f" and {self.opponent_label}'s {theirs}" if theirs else "")

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
        self._entries.append(len(self._moves))  # what one line or click played: undo takes it back whole
        made = [self._apply(a, by_agent=False) for a in actions]
        self.last_reply = []
        return made + (self.reply() if reply else [])

    def reply(self) -> list[Move]:
        """Let the agent act until it is the person's turn or the game is over; returns its moves."""
        made = []
        while not self.is_over and self.to_move != self.human:
            action = int(self.opponent.act(self._state.copy()))
            message = self.adapter.illegal(self._state, action)
            if message is not None:  # a bug in the agent, not a choice
                raise RuntimeError(f"{self.opponent_label} played illegal action {action}: {message}")
            made.append(self._apply(action, by_agent=True))
        self.last_reply = made
        return made

    def _check_turn(self) -> None:
        if self.is_over:
            raise ValueError(f"the game is over: {self.adapter.result(self._state)}; undo or start a new game")
        if not self.your_turn:
            raise ValueError(f"it is {self.opponent_label}'s turn, not yours")

    def _apply(self, action: int, by_agent: bool) -> Move:
        s = self._state
        move = Move(int(s.to_move), action, self.adapter.action_name(s, action), by_agent,
                    self.adapter.continued(s, action))
        self._history.append(s.copy())
        s.apply(action)
        self._moves.append(move)
        return move

    def undo(self) -> list[Move]:
        """Take back the person's last move as entered (all that one line or one click played: ``E5-E9``,
        ``Bc4,Wd5``) and the agent's replies after it; returns the moves taken back.

        ValueError (nothing changes) when the person has not moved yet.
        """
        if not self.can_undo:
            raise ValueError("nothing to undo: you have not moved yet")
        k = self._entries.pop()
        undone = self._moves[k:]
        self._state = self._history[k]
        del self._moves[k:], self._history[k:]
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
        agent = self._hint_agent(spec or self.hint_spec)
        agent.reset(self.seed)
        state = self._state.copy()
        first = action = int(agent.act(state.copy()))
        while self.adapter.continued(state, action):
            state.apply(action)
            action = int(agent.act(state.copy()))
        return first, self.adapter.action_name(state, action)

    def _hint_agent(self, spec: str) -> Agent:
        if spec not in self._hint_agents:
            agent = _load(spec, "the hint agent")
            reason = self.adapter.fits(agent)
            if reason is not None:
                raise ValueError(f"the hint agent cannot play this board: {reason}")
            self._hint_agents[spec] = agent
        return self._hint_agents[spec]

    # ------------------------------------------------------------ records
    def record_text(self) -> str:
        """The game's record, the players in a comment on the first line."""
        names = self.adapter.player_names
        label = {self.human: "you", 1 - self.human: self.opponent_label}
        return self.adapter.record_text(self.actions, f"{label[0]} ({names[0]}) vs {label[1]} ({names[1]})")

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
