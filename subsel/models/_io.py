"""Small file helpers shared by the package: atomic writes so no reader ever sees half a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable


def _default_mode(path: Path) -> int:
    """The mode a plainly created file would get: the existing file's, else 0o666 minus the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_with(path: str | os.PathLike, writer: Callable[[str], object]) -> None:
    """Call ``writer(tmp_path)`` on a temporary file next to ``path``, then rename it into place.

    The temporary file keeps the destination's suffix (some writers choose the format by it) and
    gets the permissions an ordinary new file would have.

    Raises
    ------
    OSError
        When the folder is missing or not writable; the destination is then left untouched.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix or ".tmp",
                               dir=path.parent or ".")
    os.close(fd)
    try:
        writer(tmp)
        os.chmod(tmp, _default_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    Parameters
    ----------
    path : str or path-like
        Destination; its folder must exist.
    text : str
        Content.

    Raises
    ------
    OSError
        When the folder is missing or not writable; the destination is then left untouched.
    """
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding=encoding, newline="") as fh:
            fh.write(text)

    atomic_write_with(path, write)
