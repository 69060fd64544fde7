"""The documentation agrees with the repository: rules references point to pages and sections that exist,
relative links point to files (and headings) that exist, the site builds in strict mode, and the measured
tables of the docs pages are the ones their data (journals, the pretrained index) give."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = re.compile(r"docs/rules/(\w+)\.md(?:\s+sections?\s+(\d+)(?:\s+(?:to|and|-)\s+(\d+))?)?")


def _doc_pages() -> list[Path]:
    """The README and the documentation pages (docs/ and its folders, the rules pages included)."""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def _docs_text() -> str:
    """The text of the documentation pages, the README excluded: where the measured tables live."""
    return "\n\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").rglob("*.md")))


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


def _shipped_index() -> dict:
    """The shipped networks' index (agents/networks/index.json), read by the package's own reader."""
    from agents.pretrained import _read_index, network_dir

    return _read_index(network_dir())


JOURNAL_ROW = re.compile(r"^\|.*\((?:\.\./)*benchmarks/journals/([\w.-]+\.jsonl)\).*\|$", re.M)


def test_docs_rows_from_a_journal_show_its_games_and_score():
    """A docs row (docs/pretrained.md, docs/benchmarks.md ...) that links a journal in
    benchmarks/journals/ shows that journal's count, score and ms/move; every journal has a row."""
    from agents.arena import ArenaResult

    text = _docs_text()
    rows = JOURNAL_ROW.findall(text)
    kept = sorted(p.name for p in (ROOT / "benchmarks" / "journals").glob("*.jsonl"))
    assert rows and sorted(set(rows)) == kept, f"the docs link {sorted(set(rows))}, the folder holds {kept}"
    for m in JOURNAL_ROW.finditer(text):
        row, name = m.group(0), m.group(1)
        result = ArenaResult.from_journal(ROOT / "benchmarks" / "journals" / name)
        wr, lo, hi, n = result.win_rate(0, 1)
        cells = [c.strip().strip("*") for c in row.strip("|").split("|")]
        assert f"{n} so far" in cells or str(n) in cells, f"{name}: {n} games, the docs row says {row}"
        assert f"{wr:.1%} [{100 * lo:.1f}, {100 * hi:.1f}]" in cells, f"{name}: {wr:.1%} [{lo:.3f}, {hi:.3f}], the docs row says {row}"
        assert f"{result.ms_per_move[0]:.0f}" in cells, f"{name}: {result.ms_per_move[0]:.0f} ms per move, the docs row says {row}"


def test_journals_of_a_shipped_network_played_the_file_that_ships():
    """A journal in benchmarks/journals/ whose player names a shipped network (``NAME@sha``,
    ``network=NAME``, ``pretrained=NAME``) recorded that network's file: the shipped one, or the
    search network refit from it. A network replaced (``pretrained.py add --replace``) leaves no
    journal of the old file behind."""
    import json

    index = _shipped_index()
    named = re.compile(r"^(?P<at>[\w.-]+)@|(?:network|pretrained)=(?P<kw>[\w.-]+)")
    checked = 0
    for path in sorted((ROOT / "benchmarks" / "journals").glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            header = json.loads(f.readline())
        for spec, sha in zip(header["agents"], header.get("networks", [])):
            m = named.search(spec)
            name = m and (m.group("at") or m.group("kw"))
            if sha is None or name not in index:
                continue
            entry = index[name]
            files = {entry["sha256"]} | ({entry["search"]["sha256"]} if entry.get("search") else set())
            assert sha in files, f"{path.name}: {spec} played a file of sha256 {sha[:12]}, the index ships {name} " \
                                 f"as {entry['sha256'][:12]}: measure the shipped file again or remove the journal"
            checked += 1
    assert checked >= 10


def test_strength_table_is_the_one_the_index_gives():
    """docs/pretrained.md's strength table is `python benchmarks/pretrained.py table` of the shipped index, verbatim."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "table"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.strip()
    page = (ROOT / "docs" / "pretrained.md").read_text(encoding="utf-8")
    assert out.startswith("| network | game |") and out.count("\n") > 10
    stale = [line for line in out.splitlines() if line not in page.splitlines()]
    assert not stale, f"docs/pretrained.md's strength table lacks these rows of the index (rerun the table command): {stale}"
    start = page.index(out.splitlines()[0])
    shown = page[start:].split("\n\n", 1)[0].strip()
    assert shown == out, "docs/pretrained.md's strength table has rows the index does not give"


def test_strongest_opponents_table_names_players_that_load():
    """Every spec of docs/pretrained.md's "strongest opponent" table parses, names a registered
    player and, where it names a network, a shipped one; the games it cites of a shipped network are
    the index's; every shipped network's board has a row."""
    import agents

    page = (ROOT / "docs" / "pretrained.md").read_text(encoding="utf-8")
    heading = "## The strongest opponent per game and size"
    assert heading in page
    section = page[page.index(heading):].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| game")]
    index = _shipped_index()
    shipped = set(index)
    specs = []
    for row in rows:
        specs += re.findall(r"`([a-z]+(?::[^`]*)?)`", row.split("|")[2])
    assert len(rows) >= 8 and specs, rows
    for spec in specs:
        name, options = agents.parse_spec(spec)
        assert name in agents.available(), spec
        for key in ("pretrained", "network"):
            if key in options:
                assert options[key] in shipped, f"{spec}: no shipped network {options[key]!r}"
    for row in rows:  # "N of M against `OPPONENT`" of a shipped network is its strength table's row
        names = set(re.findall(r"(?:pretrained|network)=(\w+)", row)) & shipped
        for wins, games, opponent in re.findall(r"(\d+) of (\d+) against `([^`]+)`", row):
            assert len(names) == 1, f"which network's {wins} of {games}? {row}"
            (name,) = names
            # (a size-general network has a row per board: the figure must be one of them)
            measured = [m for m in index[name]["strength"] if m["opponent"] == opponent]
            assert measured, f"{name} has no measurement against {opponent}"
            found = [(round(m["win_rate"] * m["games"]), m["games"]) for m in measured]
            assert (int(wins), int(games)) in found, \
                f"{name} against {opponent}: the index says {found} (wins, games), the row {wins} of {games}"
    def board_label(entry: dict) -> str:  # the table's name of a shipped network's board
        n = entry["board_size"]
        return {"xodd": f"Xodd {n}x{n}", "yodd": f"Yodd base {n}", "yinsh": "YINSH"}[entry["game"]]

    for label in {board_label(d) for d in index.values()}:
        assert any(row.startswith(f"| {label} |") for row in rows), f"no row for {label}"


def _documented_ppo_commands() -> list[str]:
    """Every ``python -m agents.ppo ...`` command the README, the docs pages and the pretrained index show."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in _doc_pages()).replace("\\\n", " ")
    commands = [m.group(0) for m in re.finditer(r"python -m agents\.ppo(?: +[^\s`|]+)+", text)]
    index = _shipped_index()
    rows = index.values() if isinstance(index, dict) else index
    commands += [stage for row in rows if isinstance(row, dict)  # a network trained in stages: each stage
                 for stage in str(row.get("command", "")).split(" && ") if "agents.ppo" in stage]
    return commands


def test_documented_training_commands_parse_and_their_opponents_play_the_game(tmp_path):
    """The README's, the docs pages' and the index's training commands start: their arguments pass the trainer's
    checks, and their evaluation and league opponents can play the command's game (the YINSH
    command keeps the default --eval-opponents, which leaves greedy out there)."""
    import shlex

    from agents.train.ppo import build_agents, eval_opponents, game_of, games_of, parse_args, validate_args

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
            # raises ValueError naming the spec that plays none of the run's boards (a per-size network
            # plays its own board's lane of a run over several sizes)
            build_agents(text, games_of(args), what)
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


def test_notebook_02_trains_with_the_recipe_of_the_training_page():
    """Notebook 02's full mode is the training page's first recipe (once it was an older one: minibatches
    of 1024, 4 epochs, no league against greedy), at the notebook's game, board, time and logging."""
    import json
    import shlex
    from dataclasses import asdict

    from agents.train.ppo import Args, parse_args

    text = (ROOT / "docs/training.md").read_text(encoding="utf-8")
    section = text.split("## A first training run", 1)[1]
    command = re.search(r"python -m agents\.ppo (.*?)\n(?!    )", section, re.S).group(1).replace("\\\n", " ")
    recipe = asdict(parse_args(shlex.split(command)))
    cells = json.loads((ROOT / "notebooks/02_train_a_baseline.ipynb").read_text(encoding="utf-8"))["cells"]
    settings = next(c for c in cells if c["cell_type"] == "code" and "args = Args(" in "".join(c["source"]))
    namespace = {"Args": Args, "Path": Path, "asdict": asdict, "QUICK": False,
                 "display": lambda *a: None, "Markdown": lambda *a: None}
    exec("".join(settings["source"]), namespace)
    notebook = asdict(namespace["args"])
    # what a notebook run sets for itself: its board, its time, its logs and evaluations, its milestones
    own = {"game", "board_size", "total_minutes", "milestones", "run_dir", "overwrite", "tensorboard", "progress",
           "eval_every", "eval_games", "checkpoint_every"}
    differ = {k: (notebook[k], recipe[k]) for k in recipe if k not in own and notebook[k] != recipe[k]}
    assert not differ, f"notebook 02's full mode is not docs/training.md's recipe: (notebook, page) {differ}"
    assert recipe["scripted_opponents"] == "greedy" and recipe["scripted_prob"] == 0.3


def test_comments_on_what_import_odd_env_registers_name_every_game():
    """A comment in the parallel-API example once said ``import odd_env`` registers two of the three games."""
    from odd_env.game import available_games

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = 0
    for page in pages:
        for line in page.read_text(encoding="utf-8").splitlines():
            if re.search(r"#.*\bregisters\b.*odd_env/", line):
                found += 1
                missing = [g for g in available_games() if f"odd_env/{g}-v0" not in line]
                assert not missing, f"{page.relative_to(ROOT)}: {line.strip()!r} leaves out {missing}"
    assert found


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
    namespaces = {"odd_env/gym_env.py": {}, "odd_env/games/odd/positions.py": {"from_ascii": from_ascii},
                  "odd_env/__init__.py": {"pettingzoo": __import__("pettingzoo")},
                  "agents/pretrained.py": {"agents": agents, "gymnasium": __import__("gymnasium")},
                  "agents/play/session.py": {"PlaySession": PlaySession}}
    for path, namespace in namespaces.items():
        (code,) = _docstring_examples(path)
        import odd_env  # noqa: F401  (registers the envs the examples make)
        exec(code, dict(namespace))
    assert GameRecord.load("game.txt").game == "yodd"
    formats = _docstring_examples("odd_env/games/odd/records.py") + _docstring_examples("odd_env/games/yinsh/records.py")
    assert len(formats) == 2
    for text, kind, result in zip(formats, (GameRecord, YinshRecord), ("white wins", "white wins")):
        record = kind.from_text(re.sub(r"[ \t]+<-.*", "", text))
        assert record.state.is_terminal and result in record.to_text(), record.to_text()


LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _slug(heading: str) -> str:
    """A heading's anchor as MkDocs (toc's default slugify) makes it; GitHub's agrees on these pages' headings."""
    text = re.sub(r"<[^>]+>|`", "", heading)
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}


def test_relative_links_point_to_existing_files():
    """Every relative link of the README and of the docs pages points to a file of the repository,
    and a link to a heading of a Markdown page (``page.md#heading``) to a heading it has."""
    checked = 0
    for page in _doc_pages():
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for target in LINK.findall(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # https:, mailto: ...
            path, _, anchor = target.partition("#")
            where = f"{page.relative_to(ROOT)} links {target!r}"
            dest = (page.parent / path).resolve() if path else page
            assert dest.is_file(), f"{where}: no such file"
            assert ROOT in dest.parents, f"{where}: outside the repository"
            if anchor and dest.suffix == ".md" and "." not in anchor:  # dotted anchors are mkdocstrings' objects
                assert anchor in _anchors(dest), f"{where}: no heading with that anchor in {dest.relative_to(ROOT)}"
            checked += 1
    assert checked > 50


def test_readme_is_the_front_door():
    """The README stays short and leads to the docs pages for the three questions users ask."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    for target in ("docs/training.md#train-on-yinsh", "docs/pretrained.md#the-strongest-opponent-per-game-and-size",
                   "docs/ray.md", "docs/getting-started.md", "docs/benchmarks.md", "docs/layout.md"):
        assert f"]({target}" in readme, target
    assert "python -m pytest -n 2 -q" in readme
    assert "https://download.pytorch.org/whl/cpu" in readme  # the CPU build: PyPI's torch is the CUDA one


def test_site_builds_in_strict_mode(tmp_path):
    """``mkdocs build --strict`` succeeds: every page, link, anchor, docstring reference and notebook
    of mkdocs.yml resolves (skipped where the docs extra is not installed)."""
    import pytest

    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "mkdocs_jupyter"):
        pytest.importorskip(module)
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site"),
                          "--config-file", str(ROOT / "mkdocs.yml")], cwd=ROOT, capture_output=True, text=True,
                         env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    assert (tmp_path / "site" / "pretrained" / "index.html").is_file()
    assert (tmp_path / "site" / "notebooks" / "04_yinsh" / "index.html").is_file()
    env_page = (tmp_path / "site" / "envs" / "xodd" / "index.html").read_text(encoding="utf-8")
    assert "stones of the acting player" in env_page  # the observation planes, from odd_env.xodd_v0's docstring


def test_readme_python_examples_run(capsys):
    """The README's Python blocks (a first game, the game interface) run as written."""
    import odd_env  # noqa: F401  (registers the envs)

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S)
    assert len(blocks) >= 2
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "rings_removed" in out, out  # the YINSH game's summary, printed by the second block


def test_the_extras_that_train_bring_tensorboard():
    """--tensorboard is on by default in the PPO and RLlib trainers: every extra that installs one brings it
    (the rllib extra once lacked it)."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for name in ("agents", "dev", "rllib"):
        assert any(req.replace(" ", "").startswith("tensorboard") for req in extras[name]), name
