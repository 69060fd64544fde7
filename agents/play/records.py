"""The records of play sessions: reading a saved game of any game, and writing one with its players named.

:func:`load_record` tells the game from the record's header line; :func:`session_record` writes a
session's record through the game's front end (:meth:`odd_env.common.front.FrontEnd.record_text`).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from odd_env._files import RECORD_LIMIT, check_path, read_bytes
from odd_env.game import available_games, make as make_game


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


def session_record(front: Any, actions: Sequence[int], human: int, opponent_label: str) -> str:
    """The record of a game of a person (playing ``human``) against ``opponent_label``, the players in
    a comment on the first line."""
    names = front.player_names
    label = {human: "you", 1 - human: opponent_label}
    return front.record_text(actions, f"{label[0]} ({names[0]}) vs {label[1]} ({names[1]})")
