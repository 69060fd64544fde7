"""The notebooks: each runs without a cell error in quick mode, and the committed copies carry their outputs.

The notebooks are executed with ``ODD_ENV_QUICK=1`` in a temporary copy (the
committed outputs are never rewritten), with the working directory in that
copy, so training runs write there too.
"""

import shutil
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 300
"""Seconds any one cell may take in quick mode before the test fails."""
MAX_BYTES = 1_500_000


def test_there_are_notebooks():
    assert [p.name for p in NOTEBOOKS] == [
        "01_rules_and_environment.ipynb",
        "02_train_a_baseline.ipynb",
        "03_play_and_analyse.ipynb",
        "04_yinsh.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(path, tmp_path, monkeypatch):
    committed = path.read_bytes()
    work = tmp_path / path.name
    shutil.copy(path, work)
    monkeypatch.setenv("ODD_ENV_QUICK", "1")
    monkeypatch.delenv("ODD_ENV_CHECKPOINT", raising=False)
    nb = nbformat.read(work, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=False,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert path.read_bytes() == committed, "the committed notebook must not be rewritten"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_has_outputs_from_a_full_run(path):
    assert path.stat().st_size < MAX_BYTES, f"{path.name} is {path.stat().st_size} bytes"
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    md = [c for c in nb.cells if c.cell_type == "markdown"]
    assert code and len(md) >= len(code) // 2, "prose between the cells"
    assert all(c.execution_count is not None for c in code), "every cell executed"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "executed in order, once"
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    first = "".join(o.get("text", "") for o in code[0].outputs)
    assert "full mode" in first, "committed outputs come from a full (not quick) run"
