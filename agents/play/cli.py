"""Play against an agent in the terminal.

Command line::

    python -m agents.play --game yodd --board-size 6 --opponent mcts:simulations=200 --as black
    python -m agents.play --opponent ppo:path=runs/y4/last.pt --as random --seed 3
    python -m agents.play --load runs/play/xodd7-20260101-120000.txt     # go on with a saved game
    python -m agents.play --game yinsh --blitz --opponent mcts:simulations=200 --as black

The board is drawn with its coordinates (coloured when standard output is a
terminal, ``NO_COLOR`` is unset and ``--no-color`` is not given), with the
group counts, the parity and whose turn and step it is. At the prompt type a
move in the game's notation (docs/rules/xodd_yodd.md section 8):

===============  ===========================================================
``Bc4``          a black stone on c4 (``Wc4`` a white one): either colour,
                 whoever you are; a bare cell ``c4`` is a stone of your colour
``Bc4,Wd5``      a whole two-stone turn on one line
``pass``         pass (step 1); two passes in a row end the game
``end``          end the turn after one stone (step 2)
``undo``         take back your last move as typed (the whole line) and the agent's replies after it
``hint [SPEC]``  what an agent (default ``--hint``, greedy) would play here
``save FILE``    write the game's record to FILE
``quit``         stop (the record is saved, as at the end)
``help``         this list
===============  ===========================================================

YINSH (``--game yinsh``, ``--variant blitz`` or ``--blitz`` for the blitz
game) is written as in its records (docs/rules/yinsh.md section 6), one or
more of your decisions on a line: ``E5`` (place a ring), ``E4-E10`` (choose
the ring on E4 and move it to E10), ``xE5-E9`` (remove a row by its ends),
``rE5`` (remove a ring), ``pass``. The status line says who decides what,
the rings removed and the markers left in the pool. Its agents are random
and mcts (the default, also for hints); greedy plays Xodd and Yodd only.

An illegal or unreadable move gets one line saying why (the rules' reason)
and the prompt again. At the end the result and the group counts are shown
and the record is saved to ``--save`` (default
``runs/play/<game><size>-<time>.txt``; an existing file only when it is the
``--load`` file or with ``--overwrite``), a :class:`~odd_env.games.odd.records.GameRecord`
text (for YINSH a :class:`~odd_env.games.yinsh.records.YinshRecord`) that ``--load`` and
``GameRecord.load`` (``YinshRecord.load``) read back.

The game logic is :class:`agents.play.session.PlaySession`; this module only
reads lines and prints.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Sequence, TextIO

from odd_env._files import check_can_make_dir, check_path

from odd_env.game import available_games

from .session import DEFAULT_SIZES, PlaySession, load_record

COMMANDS = """commands:
  undo           take back your last move as typed (the whole line) and the agent's replies
  hint [SPEC]    what an agent would play here (default: {hint})
  save FILE      write the record to FILE
  quit           stop (the record is saved)
  help           this list"""


def use_colour(stream: TextIO, disabled: bool = False) -> bool:
    """ANSI colours only on a terminal, without ``NO_COLOR`` (https://no-color.org) and ``--no-color``."""
    if disabled or os.environ.get("NO_COLOR", ""):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class TerminalGame:
    """The terminal front end: reads commands from ``stdin``, prints to ``stdout``."""

    def __init__(self, session: PlaySession, save_path: Path, colour: bool,
                 stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout):
        """Play ``session``; the record goes to ``save_path`` at the end or on quit."""
        self.session = session
        self.save_path = save_path
        self.colour = colour
        self.stdin = stdin
        self.stdout = stdout
        # Echo what was read when the input is not typed (a script): the transcript then reads as a game.
        self.echo = not (getattr(stdin, "isatty", None) and stdin.isatty())

    def say(self, text: str = "") -> None:
        """Print one or more lines."""
        print(text, file=self.stdout, flush=True)

    def board(self) -> None:
        """The board, the status line and whose turn it is."""
        s = self.session
        self.say()
        self.say(s.adapter.text(s.state, colour=self.colour))
        self.say(s.status())

    def read(self) -> str | None:
        """One line from the person, or None at the end of the input."""
        prompt = f"you ({self.session.human_name})> "
        if not self.echo and self.stdin is sys.stdin and self.stdout is sys.stdout:
            try:  # a person at a terminal: input() gives line editing and history with readline
                import readline  # noqa: F401
            except ImportError:  # pragma: no cover - Windows
                pass
            try:
                return input(prompt).strip()
            except EOFError:
                self.say()
                return None
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.say()
            return None
        if self.echo:
            self.say(line.rstrip("\n"))
        return line.strip()

    def replies(self) -> None:
        """Let the agent answer, saying what it played."""
        s = self.session
        if s.is_over or s.your_turn:
            return
        self.say(f"{s.opponent_label} ({s.agent_name}) is thinking...")
        t0 = time.perf_counter()
        reply = s.reply()
        self.say(f"{s.opponent_label} ({s.agent_name}) plays {s.describe(reply)} "
                 f"({time.perf_counter() - t0:.1f} s)")

    def run(self) -> int:
        """Play until the game ends or the person quits; returns the exit status (0, or 130 on Ctrl-C)."""
        try:
            return self._play()
        except KeyboardInterrupt:  # nothing is lost: the game so far is saved
            self.say()
            self.stopped("interrupted")
            return 130

    def stopped(self, why: str) -> None:
        """Save the unfinished game and say where."""
        path = self._save()
        if path is not None:
            self.say(f"{why}; record saved to {path} (go on with: python -m agents.play --load {path})")

    def _save(self) -> Path | None:
        """Save the record to the save path; if that fails, say why and print the record (nothing is lost)."""
        try:
            return self.session.save(self.save_path)
        except (OSError, ValueError) as e:
            self.say(f"could not save the record to {self.save_path}: {getattr(e, 'strerror', None) or e}; "
                     "here it is, to keep by hand:")
            self.say(self.session.record_text().rstrip("\n"))
            return None

    def _play(self) -> int:
        s = self.session
        self.say(f"{s.adapter.label}: {s.players()}. Type a move or 'help'.")
        if s.last_reply:
            self.say(f"{s.opponent_label} ({s.agent_name}) plays {s.describe(s.last_reply)}")
        self.board()
        while not s.is_over:
            line = self.read()
            if line is None or line.lower() in ("quit", "exit", "q"):
                self.stopped("stopped before the end")
                return 0
            if not line or self.command(line):
                continue
            try:
                s.play_text(line, reply=False)
            except ValueError as e:  # one line saying why; the position is unchanged
                self.say(str(e))
                continue
            self.replies()
            self.board()
        path = self._save()  # the board above says the result and the group counts
        if path is not None:
            self.say(f"record saved to {path}")
        return 0

    def command(self, line: str) -> bool:
        """Run ``line`` if it is a command (not a move); True if it was one."""
        s = self.session
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        if word in ("help", "?"):
            self.say(f"a move: {s.adapter.move_help}")
            self.say(COMMANDS.format(hint=s.hint_spec))
        elif word == "undo":
            try:
                undone = s.undo()
            except ValueError as e:
                self.say(str(e))
                return True
            self.say(s.describe_undone(undone))
            self.board()
        elif word == "hint":
            try:
                _, name = s.hint(rest or None)
            except ValueError as e:
                self.say(f"no hint: {e}")
                return True
            self.say(f"hint: {rest or s.hint_spec} would play {name}")
        elif word == "save":
            if not rest:
                self.say("save needs a file name: save FILE")
                return True
            try:
                path = s.save(rest)
            except (OSError, ValueError) as e:  # ValueError: a directory, a device
                self.say(f"could not save to {rest}: {getattr(e, 'strerror', None) or e}")
                return True
            self.say(f"record saved to {path}")
        elif word in ("board", "show"):
            self.board()
        else:
            return False
        return True


# ---------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    sizes = ", ".join(f"{g} {n}" for g, n in DEFAULT_SIZES.items())
    p = argparse.ArgumentParser(
        prog="python -m agents.play",
        description="Play Xodd, Yodd or YINSH against an agent in the terminal.",
        epilog="At the prompt: a move (Bc4, Wc4, c4, Bc4,Wd5, pass, end; YINSH: E5, E4-E10, xE5-E9, rE5, "
               "pass), undo, hint [SPEC], save FILE, quit, help.",
    )
    p.add_argument("--game", choices=available_games(), default=None,
                   help="which game (default: the game of --load or of a network, a size-general one included, else xodd)")
    p.add_argument("--board-size", type=int, default=None,
                   help=f"Xodd side n or Yodd base n (default: the network's board, else {sizes}; "
                        "YINSH has one board)")
    p.add_argument("--variant", choices=("blitz",), default=None,
                   help="YINSH blitz (the first ring removed wins); default the standard game")
    p.add_argument("--blitz", action="store_true", help="the same as --variant blitz")
    p.add_argument("--opponent", default=None, metavar="SPEC",
                   help="the agent: name[:key=value,...], e.g. greedy, mcts:simulations=200, "
                        "ppo:path=runs/y4/last.pt (default greedy; for YINSH mcts:simulations=100)")
    p.add_argument("--as", dest="human", default=None, metavar="SIDE",
                   help="your side: a player of the game (black or white; YINSH white or black) or random "
                        "(drawn with --seed); default black")
    p.add_argument("--seed", type=int, default=None, help="seeds the agent and --as random")
    p.add_argument("--hint", default=None, metavar="SPEC",
                   help="the agent that 'hint' asks (default: as --opponent's default)")
    p.add_argument("--load", default=None, metavar="FILE", help="go on with a saved game (a record)")
    p.add_argument("--save", default=None, metavar="FILE",
                   help="where the record goes at the end (default runs/play/<game><size>-<time>.txt); an "
                        "existing file is replaced only if it is the --load file or with --overwrite")
    p.add_argument("--overwrite", action="store_true", help="let --save replace an existing file")
    p.add_argument("--no-color", action="store_true", help="no ANSI colours (also: NO_COLOR=1)")
    return p


def make_session(args: argparse.Namespace) -> PlaySession:
    """The session the arguments describe; ValueError saying what is wrong."""
    actions: list[int] = []
    game, size = args.game, args.board_size
    variant = "blitz" if args.blitz else args.variant
    if args.load is not None:
        try:
            loaded_game, loaded_size, loaded_variant, actions = load_record(args.load)
        except OSError as e:
            raise ValueError(f"cannot read --load {args.load}: {e.strerror or e}") from None
        loaded = " ".join(str(w) for w in (loaded_game, loaded_size or "", loaded_variant) if w)
        wanted = " ".join(str(w) for w in (game or loaded_game, size or loaded_size or "", variant or loaded_variant)
                          if w)
        if game not in (None, loaded_game) or size not in (None, loaded_size) or variant not in (None, loaded_variant):
            raise ValueError(f"--load {args.load} is a game of {loaded}, not {wanted}")
        game, size, variant = loaded_game, loaded_size or None, loaded_variant
    if variant and game not in (None, "yinsh"):
        raise ValueError(f"--variant {variant} is a variant of YINSH: add --game yinsh")
    return PlaySession(game, size, opponent=args.opponent, human=args.human,
                       seed=args.seed, hint=args.hint, actions=actions, variant=variant)


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Run the command; returns the exit status (2 for bad arguments)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    try:
        if args.seed is not None and args.seed < 0:
            raise ValueError(f"--seed must be an integer >= 0, got {args.seed}")
        if args.save:  # checked before the game, which would otherwise be lost at its end
            save = check_path(args.save, "--save")
            if save.exists() and not save.is_file():
                raise ValueError(f"--save {args.save} exists and is not a regular file")
            same = args.load is not None and save.resolve() == Path(args.load).resolve()
            if save.exists() and not (same or args.overwrite):
                raise ValueError(f"--save {args.save} exists: add --overwrite to replace it, or give another file "
                                 "(the --load file itself is saved over)")
            check_can_make_dir(save.parent, "the --save folder")
        session = make_session(args)
    except ValueError as e:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    a = session.adapter
    default = Path("runs", "play", f"{a.label.replace(' ', '')}-{time.strftime('%Y%m%d-%H%M%S')}.txt")
    save = Path(args.save) if args.save else default
    game = TerminalGame(session, save, use_colour(stdout, args.no_color), stdin, stdout)
    return game.run()


if __name__ == "__main__":
    raise SystemExit(main())
