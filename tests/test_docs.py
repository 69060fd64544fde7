"""Every rules reference in the repository points to a page and a section that exist in it."""

from __future__ import annotations

import re
import subprocess
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
        assert path.name == "test_docs.py" or "../shared" not in text, f"{path.relative_to(ROOT)} points to ../shared, which users do not have"
        for m in REFERENCE.finditer(text):
            page = ROOT / "docs" / "rules" / f"{m.group(1)}.md"
            assert page.is_file(), f"{path.relative_to(ROOT)} cites {m.group(0)!r}: no such page"
            wanted = [int(x) for x in m.groups()[1:] if x]
            missing = set(wanted) - _sections(page)
            assert not missing, f"{path.relative_to(ROOT)} cites {m.group(0)!r}: no section {sorted(missing)}"
            checked += 1
    assert checked > 20  # the code cites the rules pages throughout
