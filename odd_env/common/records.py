"""What the game records of every game share: the text file format's lines, saving and loading.

A record class (:class:`odd_env.games.odd.records.GameRecord`,
:class:`odd_env.games.yinsh.records.YinshRecord`) subclasses :class:`TextRecord`
and defines ``to_text()`` and the class method ``from_text(text)``; saving,
loading and the reading of lines (comments after ``#``, blank lines skipped,
errors naming the line) are the same for all.
"""

from __future__ import annotations

import os

from .._files import RECORD_LIMIT, check_path, read_text, write_atomic


def record_lines(text: str, header_hint: str) -> list[tuple[int, str]]:
    """The lines of record ``text`` that hold something, as (line number, text without comment and blanks).

    ValueError if ``text`` is not a string or holds nothing (``header_hint`` says what the first line must be).
    """
    if not isinstance(text, str):
        raise ValueError(f"a record must be text, got {type(text).__name__}")
    content = [(i, line.split("#", 1)[0].strip()) for i, line in enumerate(text.splitlines(), start=1)]
    content = [(i, line) for i, line in content if line]
    if not content:
        raise ValueError(f"empty record: {header_hint}")
    return content


class TextRecord:
    """Base of the game records: :meth:`save` and :meth:`load` over ``to_text`` / ``from_text``."""

    __slots__ = ()

    def to_text(self) -> str:
        """The record as text (one turn a line)."""
        raise NotImplementedError

    @classmethod
    def from_text(cls, text: str) -> TextRecord:
        """Parse and replay a record; ValueError naming the line and what is wrong with it."""
        raise NotImplementedError

    def save(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_text` to ``path`` (a str or os.PathLike; folders made as needed), atomically."""
        write_atomic(path, self.to_text(), what="record path")

    @classmethod
    def load(cls, path: str | os.PathLike) -> TextRecord:
        """Read a record from ``path``; ValueError naming the file and line if it is malformed or illegal,
        or if ``path`` is not a regular file (a pipe, a device) or is larger than
        :data:`odd_env._files.RECORD_LIMIT` (4 MiB)."""
        path = check_path(path, "record path")
        try:  # utf-8-sig: a byte-order mark that an editor added is skipped
            text = read_text(path, "record path", RECORD_LIMIT, encoding="utf-8-sig")
        except UnicodeDecodeError as e:
            raise ValueError(
                f"{os.fspath(path)}: not a game record: byte {e.object[e.start]:#04x} at offset {e.start} "
                "is not UTF-8 text"
            ) from None
        try:
            return cls.from_text(text)
        except ValueError as e:
            raise ValueError(f"{os.fspath(path)}: {e}") from None


class ActionRecord(TextRecord):
    """A record that any game of :mod:`odd_env.game` can use: a header line (the game's label) and
    one decision a line in the game's own notation (``action_to_string`` / ``parse_action``).

    Subclass it with ``header`` (the first word of the file) and an ``__init__`` that passes the
    game; :meth:`from_actions`, :meth:`from_text`, ``save`` and ``load`` come with it.
    """

    __slots__ = ("game", "_state", "_actions")
    header = ""
    """The first word of the file: the game's name."""

    def __init__(self, game) -> None:
        self.game = game
        self._state = game.new_state()
        self._actions: list[int] = []

    @property
    def state(self):
        """A copy of the position after the recorded decisions."""
        return self._state.copy()

    @property
    def actions(self) -> tuple[int, ...]:
        """The decisions that replay the game from the start."""
        return tuple(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def play(self, action: int) -> None:
        """Record ``action`` (ValueError, nothing recorded, if it is illegal)."""
        self._state.apply(action)
        self._actions.append(int(action))

    @classmethod
    def from_actions(cls, actions) -> ActionRecord:
        """The record of ``actions`` played from the start (ValueError naming the first illegal one)."""
        record = cls()
        for i, a in enumerate(actions):
            try:
                record.play(a)
            except ValueError as e:
                raise ValueError(f"action {i + 1}: {e}") from None
        return record

    def to_text(self) -> str:
        """The header and one decision a line."""
        state, lines = self.game.new_state(), [self.header]
        for a in self._actions:
            lines.append(self.game.action_to_string(state, a))
            state.apply(a)
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> ActionRecord:
        """Parse and replay a record; ValueError naming the line and what is wrong with it."""
        content = record_lines(text, f"the first line must be {cls.header!r}")
        lineno, first = content[0]
        if first.split()[0].lower() != cls.header:
            raise ValueError(f"line {lineno}: {first!r} is not a {cls.header} record (the first line must be "
                             f"{cls.header!r})")
        record = cls()
        for lineno, line in content[1:]:
            try:
                record.play(record.game.parse_action(record._state, line))
            except ValueError as e:
                raise ValueError(f"line {lineno}: {e}") from None
        return record
