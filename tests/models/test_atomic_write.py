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
