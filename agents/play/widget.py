"""Play against an agent on a clickable board in Jupyter.

::

    import agents
    agents.play_widget(opponent="greedy", game="xodd", board_size=7)

shows the board (the SVG of game's front end (:class:`odd_env.common.front.FrontEnd`), with the legal
cells dotted and the last turn's stones ringed), the group counts, the parity
and whose turn it is. A click on a cell places a stone of your colour; the
toggle above the board (or shift-click) places one of the opponent's colour.
Buttons: pass / end turn, undo (back before your last click), hint, and a
new game (with the colour you choose). The agent replies by itself.

YINSH (``agents.play_widget(game="yinsh", variant="blitz", opponent="random")``):
a click on a point is the point action of the decision: place a ring, choose
the ring to move, its destination, or the ring to remove. A row to remove is
chosen by a click on a point that only it holds, or with its button (the
legal rows are listed as buttons while a row is to be removed). Pass has its
button when it is legal.

The widget is an `anywidget <https://anywidget.dev>`_ (install the
``notebooks`` extra: ``pip install -e ".[notebooks]"``). Its front end
(``widget.js``) draws what the Python side sends and sends back
messages; all the game logic is :class:`agents.play.session.PlaySession` on
the Python side, so :meth:`PlayWidget.handle_message` can be driven without
a browser::

    w.handle_message({"type": "click", "cell": 12, "colour": "own"})     # or "opponent"
    w.handle_message({"type": "button", "name": "pass"})                  # pass / end turn
    w.handle_message({"type": "button", "name": "undo"})
    w.handle_message({"type": "button", "name": "hint"})
    w.handle_message({"type": "button", "name": "new", "as": "white"})    # or "black", "random"
    w.handle_message({"type": "choose", "action": 250})                   # a listed choice (a YINSH row)

A message may carry ``"ply"``, the number of moves the board showed when it
was sent: one that no longer matches (a click made while the agent was
thinking) is ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

try:
    import anywidget
    import traitlets as t
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "agents.play.widget needs anywidget: pip install -e \".[notebooks]\" (or pip install anywidget)"
    ) from e


from ..base import Agent, check_float
from .session import PlaySession

CELL_PX = 40
"""Pixels between adjacent cells on the widget's board."""


class PlayWidget(anywidget.AnyWidget):
    """A clickable board for one :class:`~agents.play.session.PlaySession` (see the module docstring)."""

    _esm = Path(__file__).with_name("widget.js")
    _css = Path(__file__).with_name("widget.css")

    svg = t.Unicode("").tag(sync=True)
    """The board as SVG."""
    points = t.List([]).tag(sync=True)
    """``[point, x, y]`` of every clickable point, in the SVG's pixels."""
    pick_radius = t.Float(0.0).tag(sync=True)
    """A click within this many pixels of a point hits it."""
    players = t.Unicode("").tag(sync=True)
    """``"you (black) against greedy (white)"``."""
    status = t.Unicode("").tag(sync=True)
    """Whose turn and which step, or the result."""
    message = t.Unicode("").tag(sync=True)
    """The agent's last reply, a hint, or why a move was refused."""
    message_is_error = t.Bool(False).tag(sync=True)
    click_labels = t.List([]).tag(sync=True)
    """Labels of a click and of the alternative click (the colours), or [] when a click has one meaning."""
    button_label = t.Unicode("").tag(sync=True)
    """``"pass"`` or ``"end turn"``; empty where neither is legal."""
    choices = t.List([]).tag(sync=True)
    """``[label, action]`` of the moves offered as buttons (YINSH's rows to remove); [] when none."""
    can_undo = t.Bool(False).tag(sync=True)
    your_turn = t.Bool(False).tag(sync=True)
    busy = t.Bool(False).tag(sync=True)
    """True while the agent is thinking."""
    human = t.Unicode("").tag(sync=True)
    """The person's colour."""
    colour_names = t.List([]).tag(sync=True)
    """The players' names, for the new-game choice."""
    ply = t.Int(0).tag(sync=True)
    """Moves played so far: messages carry it to detect stale clicks."""

    def __init__(self, session: PlaySession, cell_px: float = CELL_PX, **kwargs: Any):
        """A widget showing ``session``, drawn with ``cell_px`` pixels between adjacent cells."""
        super().__init__(**kwargs)
        self.session = session
        self.cell_px = check_float("cell_px (pixels between adjacent cells)", cell_px,
                                   *session.adapter.cell_px_range)
        points, radius = session.adapter.click_points(self.cell_px)
        self.points = [list(p) for p in points]
        self.pick_radius = radius
        self.colour_names = list(session.adapter.player_names)
        self.on_msg(self._on_msg)
        if session.last_reply:
            self._say(f"{session.opponent_label} ({session.agent_name}) played {session.describe(session.last_reply)}")
        self.refresh()

    # ------------------------------------------------------------ view
    def refresh(self) -> None:
        """Send the session's current position and status to the front end."""
        s = self.session
        state = s.state
        self.svg = s.adapter.svg(state, s.actions, self.cell_px)
        self.players = s.players()
        self.status = s.status()
        labels = s.adapter.click_alternatives(state) if s.your_turn else None
        self.click_labels = [f"{labels[0]} (yours)", f"{labels[1]} (opponent's)"] if labels else []
        button = s.adapter.button_action(state) if s.your_turn else None
        self.button_label = button[0] if button else ""
        self.choices = [list(c) for c in s.adapter.choices(state)] if s.your_turn else []
        self.can_undo = s.can_undo
        self.your_turn = s.your_turn
        self.human = s.human_name
        self.ply = len(s.moves)

    def _say(self, text: str, error: bool = False) -> None:
        self.message = text
        self.message_is_error = error

    # ------------------------------------------------------------ messages
    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        self.handle_message(content)

    def handle_message(self, content: Any) -> None:
        """Act on one message of the front end (see the module docstring).

        A move the rules forbid, or a malformed message, changes nothing and
        sets :attr:`message` to why (with :attr:`message_is_error`).
        """
        try:
            self._handle(content)
        except ValueError as e:
            self._say(str(e), error=True)
        self.refresh()

    def _handle(self, content: Any) -> None:
        s = self.session
        if not isinstance(content, dict):
            raise ValueError(f"a message must be a dict with a 'type', got {content!r}")
        ply = content.get("ply")
        if ply is not None and ply != len(s.moves):
            return  # sent for a board that has changed since
        kind = content.get("type")
        if kind == "click":
            colour = content.get("colour", "own")
            if colour not in ("own", "opponent"):
                raise ValueError(f"a click's colour must be 'own' or 'opponent', got {colour!r}")
            cell = content.get("cell")
            self._move(lambda: s.click(cell, alternative=colour == "opponent", reply=False))
        elif kind == "button":
            self._button(content.get("name"), content)
        elif kind == "choose":
            action = content.get("action")
            offered = [a for _, a in s.adapter.choices(s.state)] if s.your_turn else []
            if action not in offered:
                raise ValueError(f"action {action!r} is not one of the choices offered now ({offered or 'none'})")
            self._move(lambda: s.play(action, reply=False))
        else:
            raise ValueError(f"unknown message type {kind!r}: expected 'click', 'button' or 'choose'")

    def _button(self, name: Any, content: dict) -> None:
        s = self.session
        if name in ("pass", "end_turn", "end turn"):
            self._move(lambda: s.button(reply=False))
        elif name == "undo":
            self._say(s.describe_undone(s.undo()))
        elif name == "hint":
            _, move = s.hint()
            self._say(f"hint: {s.hint_spec} would play {move}")
        elif name == "new":
            s.new_game(content.get("as"))
            reply = f": {s.opponent_label} played {s.describe(s.last_reply)}" if s.last_reply else ""
            self._say(f"new game, {s.players()}{reply}")
        else:
            raise ValueError(f"unknown button {name!r}: expected 'pass', 'end_turn', 'undo', 'hint' or 'new'")

    def _move(self, play: Any) -> None:
        """Play the person's move, show it, then let the agent reply and show that."""
        s = self.session
        made = play()
        self._say(f"you played {s.describe(made)}")
        if s.is_over or s.your_turn:
            return
        self.busy = True
        self.refresh()  # the person's stone appears before the agent has thought
        try:
            reply = s.reply()
        finally:
            self.busy = False
        self._say(f"{s.opponent_label} ({s.agent_name}) played {s.describe(reply)}")


def play_widget(
    opponent: str | Agent | None = None,
    game: str | None = None,
    board_size: int | None = None,
    human: str | int = "black",
    seed: int | None = None,
    hint: str | None = None,
    cell_px: float = CELL_PX,
    variant: str | None = None,
) -> PlayWidget:
    """A board to play ``game`` against ``opponent`` in Jupyter (the arguments of :class:`PlaySession`).

    ``agents.play_widget(opponent="greedy", game="xodd", board_size=7)``; with
    a network, ``agents.play_widget(opponent=agents.load("ppo", path=...))``
    plays on the network's board.
    """
    session = PlaySession(game, board_size, opponent=opponent, human=human, seed=seed, hint=hint, variant=variant)
    return PlayWidget(session, cell_px=cell_px)


__all__ = ["CELL_PX", "PlayWidget", "play_widget"]
