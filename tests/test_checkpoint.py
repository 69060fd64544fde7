"""Checkpoint files: tensors and plain values only; refused when unsafe, damaged, old or foreign."""

import io
import json
import os
import pickle
import random
import struct
import zipfile
from dataclasses import asdict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.train import checkpoint  # noqa: E402
from agents.arena import main as arena_main  # noqa: E402
from agents.train.ppo import Args, Trainer, load_checkpoint, main as ppo_main  # noqa: E402


def tiny_args(tmp_path, **kw):
    base = dict(game="xodd", board_size=4, num_games=4, rollout_steps=4, channels=4, blocks=1, minibatch_size=16,
                update_epochs=1, eval_every=0, eval_games=2, eval_opponents="random", snapshot_every=1,
                scripted_opponents="greedy", scripted_prob=0.5, run_dir=str(tmp_path / "run"),
                tensorboard=False, progress=False, total_steps=16, seed=5)
    base.update(kw)
    return Args(**base)


def trained(tmp_path, **kw):
    """A trainer after one update, with a snapshot in its pool and greedy opponents mid-game."""
    trainer = Trainer(tiny_args(tmp_path, **kw))
    trainer.learn(trainer.collect())
    trainer.pool.add(trainer.net)
    return trainer


@pytest.fixture
def saved(tmp_path):
    return trained(tmp_path).save(tmp_path / "ok.pt")


def leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))
    else:
        yield path, value


def same(a, b):
    la, lb = dict(leaves(a)), dict(leaves(b))
    if la.keys() != lb.keys():
        return False
    for k, x in la.items():
        y = lb[k]
        if isinstance(x, torch.Tensor):
            if not (isinstance(y, torch.Tensor) and x.dtype == y.dtype and torch.equal(x, y)):
                return False
        elif x != y and not (x != x and y != y):  # NaN equals NaN here
            return False
    return True


def rewrite(src, dst, mutate):
    """Write ``src``'s payload, changed by ``mutate``, as a well-formed archive with the old metadata."""
    payload = torch.load(src, weights_only=True)
    mutate(payload)
    buf = io.BytesIO()
    torch.save(payload, buf)
    with zipfile.ZipFile(src) as z:
        record = next(n for n in z.namelist() if n.endswith(checkpoint.METADATA_RECORD))
        text = z.read(record)
    with zipfile.ZipFile(buf, "a") as z:
        z.writestr(z.namelist()[0].split("/")[0] + "/" + checkpoint.METADATA_RECORD, text)
    dst.write_bytes(buf.getvalue())
    return dst


# ------------------------------------------------------------------ the format


def test_a_checkpoint_holds_only_tensors_and_plain_values(saved, monkeypatch):
    payload = torch.load(saved, weights_only=True)
    assert set(payload) == {"metadata", "data"}
    for path, leaf in leaves(payload):
        assert isinstance(leaf, (torch.Tensor, str, int, float, bool, type(None))), (path, type(leaf))
    meta = payload["metadata"]
    assert json.loads(json.dumps(meta, allow_nan=False)) == meta
    assert meta["format"] == checkpoint.FORMAT == 2 and meta["kind"] == "odd_env-ppo"
    assert (meta["game"], meta["board_size"], meta["observation_version"]) == ("xodd", 4, 1)
    assert meta["net_config"]["channels"] == 4 and meta["args"]["seed"] == 5 and meta["update"] == 1
    assert len(meta["sha256"]) == 64
    assert payload["data"]["engine_states"].dtype == torch.int32
    assert payload["data"]["scripted"][0]["spec"] == "greedy"

    def refuse(*args, **kwargs):
        raise AssertionError("read_metadata unpickled something")

    monkeypatch.setattr(torch, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    assert checkpoint.read_metadata(saved) == meta


def test_load_network_and_the_ppo_agent_read_the_same_weights(saved):
    ckpt = load_checkpoint(saved)
    net = checkpoint.load_network(saved, "xodd", 4)
    player = agents.load("ppo", path=str(saved))
    for k, v in ckpt["model"].items():
        assert torch.equal(net.state_dict()[k], v) and torch.equal(player.network.state_dict()[k], v)


def test_checkpoint_info_prints_the_metadata(saved, capsys):
    assert checkpoint.main(["info", str(saved)]) == 0
    assert json.loads(capsys.readouterr().out) == checkpoint.read_metadata(saved)


def test_bad_destinations_and_arguments_change_nothing(saved, tmp_path, capsys, monkeypatch):
    before = saved.read_bytes()
    # export onto its own source would leave a network where the run's checkpoint was
    with pytest.raises(ValueError, match="is the checkpoint itself"):
        checkpoint.export(saved, saved)
    with pytest.raises(SystemExit) as exit_:
        checkpoint.main(["export", str(saved), str(saved)])
    assert exit_.value.code == 2
    assert "is the checkpoint itself" in capsys.readouterr().err
    with pytest.raises(ValueError, match="is a directory"):
        checkpoint.export(saved, tmp_path)
    with pytest.raises(ValueError, match="must be a file path"):
        checkpoint.save(1, {}, {})  # an int would be taken as a file descriptor
    with pytest.raises(ValueError, match="map_location must be cpu or cuda"):
        checkpoint.load(saved, map_location="xyz")  # the call is wrong, not the file
    with pytest.raises(ValueError, match="board_size must be an integer or None, got str"):
        checkpoint.load(saved, board_size="4")
    with pytest.raises(ValueError, match="is a directory, not a checkpoint file"):
        checkpoint.read_metadata(tmp_path)  # once "no checkpoint at", as if it did not exist
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ValueError, match="is not a regular file"):
        checkpoint.load(tmp_path / "pipe")
    (tmp_path / "pipe").unlink()

    # a write that fails half way leaves the old file and no temporary file behind
    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        trained(tmp_path).save(saved)
    monkeypatch.undo()
    assert saved.read_bytes() == before and checkpoint.load(saved)["kind"] == checkpoint.PPO_KIND
    assert not list(tmp_path.rglob("*.tmp"))


# ------------------------------------------------------------------ unsafe files


class Payload:
    """Unpickling this runs a shell command and a Python statement, each creating a file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return os.system, (f"touch {self.marker}-system",)


class Payload2(Payload):
    def __reduce__(self):
        return exec, (f"open({self.marker + '-exec'!r}, 'w').close()",)


def test_a_planted_pickle_payload_is_refused_and_never_runs(saved, tmp_path, capsys):
    marker = tmp_path / "pwned"
    evil = [Payload(marker), Payload2(marker)]
    files = {}
    files["legacy"] = tmp_path / "legacy.pt"  # looks like a format-1 odd_env checkpoint
    torch.save({"format": 1, "kind": "odd_env-ppo", "model": {}, "scripted": evil}, files["legacy"])
    files["foreign"] = tmp_path / "foreign.pt"  # a torch file from elsewhere
    torch.save({"weights": evil}, files["foreign"])
    files["forged"] = rewrite(saved, tmp_path / "forged.pt",  # valid metadata record, payload inside
                              lambda p: p["data"].update(payload=evil))
    files["pickle"] = tmp_path / "pickle.pt"  # a bare pickle
    files["pickle"].write_bytes(pickle.dumps(evil))
    messages = {
        "legacy": r"format 1, which is refused.*unpickling.*convert",
        "foreign": "not an odd_env checkpoint",
        "forged": r"refused: torch.load\(weights_only=True\) cannot read it",
        "pickle": "corrupt or not a checkpoint",
    }
    for name, path in files.items():
        with pytest.raises(ValueError, match=messages[name]):
            checkpoint.load(path)
        with pytest.raises(ValueError, match=messages[name]):
            agents.load("ppo", path=str(path))
        with pytest.raises(SystemExit) as exc:
            arena_main(["--board-size", "4", "--agents", f"ppo:path={path}", "random", "--no-progress",
                        "--out", str(tmp_path / "arena")])
        assert exc.value.code == 2
        run_dir = tmp_path / f"run-{name}"
        run_dir.mkdir()
        (run_dir / "last.pt").write_bytes(path.read_bytes())
        with pytest.raises(SystemExit) as exc:
            ppo_main(["--run-dir", str(run_dir), "--resume"])
        assert exc.value.code == 2
    capsys.readouterr()
    assert not list(tmp_path.glob("pwned*"))
    # The payloads are live: full unpickling runs them.
    torch.load(files["legacy"], weights_only=False)
    assert sorted(p.name for p in tmp_path.glob("pwned*")) == ["pwned-exec", "pwned-system"]


# ------------------------------------------------------------------ damaged files


def storage_spans(path):
    """(start, end) of every tensor storage record's bytes in the file."""
    raw = path.read_bytes()
    spans = []
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if "/data/" in info.filename and info.file_size:
                n, m = struct.unpack("<HH", raw[info.header_offset + 26: info.header_offset + 30])
                start = info.header_offset + 30 + n + m
                spans.append((start, start + info.file_size))
    return spans


def flipped(path, out, position, bit=0x10):
    raw = bytearray(path.read_bytes())
    raw[position] ^= bit
    out.write_bytes(bytes(raw))
    return out


def test_a_flipped_byte_in_any_tensor_is_refused_by_the_checksum(saved, tmp_path):
    spans = storage_spans(saved)
    assert len(spans) > 20  # model, optimizer, pool, engine, seats, RNG
    rng = np.random.default_rng(0)
    for start, end in spans:
        bad = flipped(saved, tmp_path / "bad.pt", int(rng.integers(start, end)), bit=1 << int(rng.integers(8)))
        with pytest.raises(ValueError, match="checksum mismatch"):
            checkpoint.load(bad)
    with pytest.raises(ValueError, match="checksum mismatch"):
        agents.load("ppo", path=str(flipped(saved, tmp_path / "bad.pt", spans[0][0] + 1)))


def test_no_flipped_byte_anywhere_goes_unnoticed(saved, tmp_path):
    good = checkpoint.load(saved)
    size = saved.stat().st_size
    refused = 0
    for position in range(0, size, max(1, size // 200)):
        bad = flipped(saved, tmp_path / "bad.pt", position)
        try:
            loaded = checkpoint.load(bad)
        except ValueError:
            refused += 1
            continue
        assert same(loaded, good), position  # only bytes that carry nothing (padding) may flip unnoticed
    assert refused > 150


@pytest.mark.parametrize("edit", ["rename", "dtype", "shape", "plain", "metadata"])
def test_the_checksum_covers_names_dtypes_shapes_values_and_metadata(saved, tmp_path, edit):
    def mutate(p):
        model = p["data"]["model"]
        name = next(iter(model))
        if edit == "rename":
            model["renamed"] = model.pop(name)
        elif edit == "dtype":
            model[name] = model[name].double()
        elif edit == "shape":
            model[name] = model[name].reshape(-1)
        elif edit == "plain":
            p["data"]["rng"]["numpy"]["state"]["inc"] += 2
        else:
            p["metadata"]["global_step"] += 1

    bad = rewrite(saved, tmp_path / "edited.pt", mutate)
    with pytest.raises(ValueError, match="checksum mismatch" if edit != "metadata" else "record differs"):
        checkpoint.load(bad)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_weights_are_refused(tmp_path, value):
    trainer = trained(tmp_path)
    with torch.no_grad():
        trainer.net.stem.weight[0, 0, 1, 1] = value
    path = trainer.save(tmp_path / "diverged.pt")
    with pytest.raises(ValueError, match=r"non-finite values \(NaN or inf\) in model/stem.weight"):
        checkpoint.load(path)
    with pytest.raises(ValueError, match="non-finite"):
        agents.load("ppo", path=str(path))


def test_truncated_files_are_refused(saved, tmp_path):
    raw = saved.read_bytes()
    for length in (0, 1, 100, len(raw) // 3, len(raw) // 2, len(raw) - 100, len(raw) - 1):
        cut = tmp_path / "cut.pt"
        cut.write_bytes(raw[:length])
        with pytest.raises(ValueError, match="corrupt"):
            checkpoint.load(cut)


@pytest.mark.parametrize("field, value", [("board_size", [4]), ("board_size", 4.0), ("variant", ["x"]),
                                          ("game", {"x": 1})])
def test_metadata_of_the_wrong_type_is_a_checkpoint_error(saved, tmp_path, field, value):
    metadata = checkpoint.read_metadata(saved)
    with zipfile.ZipFile(saved) as z:
        names = z.namelist()
        record = next(n for n in names if n.endswith(checkpoint.METADATA_RECORD))
        bad = tmp_path / "bad.pt"
        with zipfile.ZipFile(bad, "w") as out:
            for n in names:
                out.writestr(n, json.dumps(dict(metadata, **{field: value})) if n == record else z.read(n))
    for read in (checkpoint.read_metadata, checkpoint.load, lambda p: agents.load("ppo", path=p)):
        with pytest.raises(checkpoint.CheckpointError, match="bad.pt"):
            read(bad)


def test_a_checkpoint_for_another_board_is_refused(saved, tmp_path):
    with pytest.raises(ValueError, match="is for xodd 4, not yodd 4"):
        checkpoint.load(saved, "yodd", 4)
    with pytest.raises(ValueError, match="is for xodd 4, not xodd 5"):
        checkpoint.read_metadata(saved, "xodd", 5)
    with pytest.raises(ValueError, match="is for xodd 4, not xodd 6"):
        checkpoint.load_network(saved, board_size=6)


# ------------------------------------------------------------------ format 1


def format1(trainer):
    """What the trainer saved before format 2 (pickled numpy arrays and agent objects)."""
    return {
        "format": 1, "kind": "odd_env-ppo", "game": "xodd", "board_size": 4, "observation_version": 1,
        "net_config": trainer.config.to_dict(), "args": asdict(trainer.args), "global_step": trainer.global_step,
        "update": trainer.update, "episodes": trainer.episodes, "train_seconds": trainer.train_seconds,
        "model": trainer.net.state_dict(), "optimizer": trainer.optimizer.state_dict(),
        "pool": trainer.pool.snapshots, "engine_states": trainer.engine.get_states(),
        "learner_seat": trainer.learner_seat.copy(), "opponent": trainer.opponent.copy(),
        "scripted": trainer.scripted,
        "rng": {"python": random.getstate(), "numpy_global": np.random.get_state(),
                "numpy": trainer.np_rng.bit_generator.state, "torch": torch.get_rng_state(), "cuda": None},
    }


def test_format1_is_refused_and_converts_only_with_trust(tmp_path, capsys):
    trainer = trained(tmp_path)
    old = tmp_path / "old.pt"
    torch.save(format1(trainer), old)
    native = trainer.save(tmp_path / "native.pt")
    with pytest.raises(ValueError, match=r"format 1, which is refused.*convert .*old.pt NEW.pt --trust"):
        load_checkpoint(old)
    new = tmp_path / "new.pt"
    with pytest.raises(SystemExit) as exc:
        checkpoint.main(["convert", str(old), str(new)])
    assert exc.value.code == 2 and "needs --trust" in capsys.readouterr().err and not new.exists()
    assert checkpoint.main(["convert", str(old), str(new), "--trust"]) == 0
    # The converted run continues exactly as the natively saved one does.
    results = []
    for path in (native, new):
        resumed = Trainer(trainer.args)
        resumed.restore(load_checkpoint(path))
        batch = resumed.collect()
        resumed.learn(batch)
        results.append((batch["action"], dict(resumed.net.state_dict()), resumed.scripted[0].get_state()))
    (a1, w1, s1), (a2, w2, s2) = results
    assert np.array_equal(a1, a2) and s1 == s2
    assert all(torch.equal(w1[k], w2[k]) for k in w1)
