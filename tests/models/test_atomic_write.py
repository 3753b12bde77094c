"""Outputs are written in place of regular files only: links are followed, special files written through."""
import os
import stat
import threading

from subsel._files import atomic_write_text


def test_symlink_target_replaced_and_link_kept(tmp_path):
    target = tmp_path / "target.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    atomic_write_text(link, "new\n")
    assert link.is_symlink()
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "target.csv"]


def test_named_pipe_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []

    def read():
        with open(fifo, encoding="utf-8") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read)
    reader.start()
    atomic_write_text(fifo, "name,units\na,1\n")
    reader.join(timeout=30)
    assert got == ["name,units\na,1\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def _record_syncs(monkeypatch):
    """Record, in order, every fsync (with what it synced) and every rename of the writer."""
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        target = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else str(fd)
        events.append(("fsync", target))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", os.fspath(src), os.fspath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return events


def test_write_syncs_the_file_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    events = _record_syncs(monkeypatch)
    out = tmp_path / "out.csv"
    atomic_write_text(out, "a\n")
    assert out.read_text() == "a\n"
    kinds = [e[0] for e in events]
    assert kinds == ["fsync", "replace", "fsync"]
    tmp = events[1][1]
    if os.path.exists("/proc/self/fd"):
        assert events[0][1] == tmp  # the temporary file's content, before its rename
        assert events[2][1] == str(tmp_path)  # the folder, after the rename


def test_every_writer_path_syncs(tmp_path, monkeypatch):
    from subsel._files import atomic_write_with

    events = _record_syncs(monkeypatch)

    def writer(tmp):
        with open(tmp, "wb") as fh:
            fh.write(b"x")

    for name in ("a.bin", "b.parquet", "c"):
        atomic_write_with(tmp_path / name, writer)
    assert [e[0] for e in events] == ["fsync", "replace", "fsync"] * 3


def test_failing_sync_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    out = tmp_path / "out.csv"
    out.write_text("old\n")

    def fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    try:
        atomic_write_text(out, "new\n")
    except OSError as exc:
        assert str(out) in str(exc)
    else:  # pragma: no cover - the failure must surface
        raise AssertionError("a failed fsync was ignored")
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
