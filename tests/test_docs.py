"""The documentation agrees with the repository: rules references point to pages and sections that exist,
and the README's measured tables are the ones their data (journals, the pretrained index) give."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = re.compile(r"docs/rules/(\w+)\.md(?:\s+sections?\s+(\d+)(?:\s+(?:to|and|-)\s+(\d+))?)?")


def _tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        names = out.split()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: scan the tree
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    return [ROOT / n for n in names if n.endswith((".py", ".md", ".ipynb", ".toml"))]


def _sections(page: Path) -> set[int]:
    return {int(m.group(1)) for m in re.finditer(r"^## (\d+)\.", page.read_text(encoding="utf-8"), re.M)}


def test_rules_references_point_to_existing_pages_and_sections():
    checked = 0
    for path in _tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        assert path.name == "test_docs.py" or not re.search(r"\bshared/", text), \
            f"{path.relative_to(ROOT)} points to shared/ beside the repository, which users do not have"
        for m in REFERENCE.finditer(text):
            page = ROOT / "docs" / "rules" / f"{m.group(1)}.md"
            assert page.is_file(), f"{path.relative_to(ROOT)} cites {m.group(0)!r}: no such page"
            wanted = [int(x) for x in m.groups()[1:] if x]
            missing = set(wanted) - _sections(page)
            assert not missing, f"{path.relative_to(ROOT)} cites {m.group(0)!r}: no section {sorted(missing)}"
            checked += 1
    assert checked > 20  # the code cites the rules pages throughout


JOURNAL_ROW = re.compile(r"^\|.*\(benchmarks/journals/([\w.-]+\.jsonl)\).*\|$", re.M)


def test_readme_rows_from_a_journal_show_its_games_and_score():
    """A README row that links a journal in benchmarks/journals/ shows that journal's count, score and ms/move."""
    from agents.arena import ArenaResult

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = JOURNAL_ROW.findall(readme)
    kept = sorted(p.name for p in (ROOT / "benchmarks" / "journals").glob("*.jsonl"))
    assert rows and sorted(set(rows)) == kept, f"README links {sorted(set(rows))}, the folder holds {kept}"
    for m in JOURNAL_ROW.finditer(readme):
        row, name = m.group(0), m.group(1)
        result = ArenaResult.from_journal(ROOT / "benchmarks" / "journals" / name)
        wr, lo, hi, n = result.win_rate(0, 1)
        cells = [c.strip().strip("*") for c in row.strip("|").split("|")]
        assert f"{n} so far" in cells or str(n) in cells, f"{name}: {n} games, the README row says {row}"
        assert f"{wr:.1%} [{100 * lo:.1f}, {100 * hi:.1f}]" in cells, f"{name}: {wr:.1%} [{lo:.3f}, {hi:.3f}], the README row says {row}"
        assert f"{result.ms_per_move[0]:.0f}" in cells, f"{name}: {result.ms_per_move[0]:.0f} ms per move, the README row says {row}"


def test_readme_strength_table_is_the_one_the_index_gives():
    """The README's strength table is `python benchmarks/pretrained.py table` of the shipped index, verbatim."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "table"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.strip()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert out.startswith("| network | game |") and out.count("\n") > 10
    stale = [line for line in out.splitlines() if line not in readme.splitlines()]
    assert not stale, f"README's strength table lacks these rows of the index (rerun the table command): {stale}"
    start = readme.index(out.splitlines()[0])
    shown = readme[start:].split("\n\n", 1)[0].strip()
    assert shown == out, "README's strength table has rows the index does not give"


def _documented_ppo_commands() -> list[str]:
    """Every ``python -m agents.ppo ...`` command the README and the pretrained index show."""
    import json

    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("\\\n", " ")
    commands = [m.group(0) for m in re.finditer(r"python -m agents\.ppo(?: +[^\s`|]+)+", text)]
    index = json.loads((ROOT / "agents/networks/index.json").read_text(encoding="utf-8"))
    rows = index.values() if isinstance(index, dict) else index
    commands += [row["command"] for row in rows if isinstance(row, dict) and "agents.train.ppo" in str(row.get("command"))]
    return commands


def test_documented_training_commands_parse_and_their_opponents_play_the_game(tmp_path):
    """The README's and the index's training commands start: their arguments pass the trainer's
    checks, and their evaluation and league opponents can play the command's game (the YINSH
    command keeps the default --eval-opponents, which leaves greedy out there)."""
    import shlex

    from agents.train.ppo import build_agents, eval_opponents, game_of, parse_args, validate_args

    commands = _documented_ppo_commands()
    assert any("--game yinsh" in c for c in commands) and len(commands) >= 4, commands
    seen_games = set()
    for command in commands:
        argv = [a for a in shlex.split(command)[3:] if a != "--help"]
        argv = ["cpu" if a.startswith("cuda") else a for a in argv]  # the GPU recipe, checked on this CPU
        if "--resume" in argv:
            continue
        args = parse_args(argv)
        validate_args(args)
        game = game_of(args)
        seen_games.add(game.name)
        for text, what in ((eval_opponents(args.eval_opponents, game), "--eval-opponents"),
                           (args.scripted_opponents, "--scripted-opponents")):
            build_agents(text, game, what)  # raises ValueError naming the spec that cannot play
    assert seen_games == {"xodd", "yodd", "yinsh"}, seen_games


def test_notebook_02_prints_the_command_of_its_own_run():
    """The command line notebook 02 shows (its committed output) is the notebook's full-mode run:
    parsed by agents.train.ppo it gives the same Args (a dropped flag or a changed default shows here)."""
    import json
    import shlex
    from dataclasses import asdict

    from agents.train.ppo import Args, parse_args

    cells = json.loads((ROOT / "notebooks/02_train_a_baseline.ipynb").read_text(encoding="utf-8"))["cells"]
    settings = next(c for c in cells if c["cell_type"] == "code" and "args = Args(" in "".join(c["source"]))
    namespace = {"Args": Args, "Path": Path, "asdict": asdict, "QUICK": False,
                 "display": lambda *a: None, "Markdown": lambda *a: None}
    exec("".join(settings["source"]), namespace)
    printed = [c for c in cells if c["cell_type"] == "code"
               and any("python -m agents.ppo" in "".join(o.get("text", "")) for o in c.get("outputs", []))]
    assert len(printed) == 1
    command = "".join(printed[0]["outputs"][0]["text"]).strip()
    assert parse_args(shlex.split(command)[3:]) == namespace["args"], command


def _docstring_examples(path: str) -> list[str]:
    """The literal blocks (after ``::``) of a module's docstring, dedented."""
    import ast
    import textwrap

    doc = ast.get_docstring(ast.parse((ROOT / path).read_text(encoding="utf-8"))) or ""
    return [textwrap.dedent(b) for b in re.findall(r"::\n\n((?:(?:    .*)?\n)+)", doc + "\n")]


def test_module_docstring_examples_run_as_written(tmp_path, monkeypatch):
    """The self-contained examples at the top of the modules run (two once needed a missing import
    or stated an impossible position); the record formats they show parse to the results they name."""
    import agents
    from agents.play.session import PlaySession
    from odd_env.games.odd.positions import from_ascii
    from odd_env import GameRecord, YinshRecord

    monkeypatch.chdir(tmp_path)  # PlaySession's example saves game.txt
    namespaces = {"odd_env/gym_env.py": {}, "odd_env/positions.py": {"from_ascii": from_ascii},
                  "odd_env/__init__.py": {"pettingzoo": __import__("pettingzoo")},
                  "agents/pretrained.py": {"agents": agents, "gymnasium": __import__("gymnasium")},
                  "agents/play_session.py": {"PlaySession": PlaySession}}
    for path, namespace in namespaces.items():
        (code,) = _docstring_examples(path)
        import odd_env  # noqa: F401  (registers the envs the examples make)
        exec(code, dict(namespace))
    assert GameRecord.load("game.txt").game == "yodd"
    formats = _docstring_examples("odd_env/records.py")
    assert len(formats) == 2
    for text, kind, result in zip(formats, (GameRecord, YinshRecord), ("white wins", "white wins")):
        record = kind.from_text(re.sub(r"[ \t]+<-.*", "", text))
        assert record.state.is_terminal and result in record.to_text(), record.to_text()
