"""Small file helpers shared by the package: atomic writes so no reader ever sees half a file."""
from __future__ import annotations

import errno
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


def _user_error(exc: OSError, path: Path, tmp: str | None) -> OSError:
    """``exc`` again, of the same class, but naming ``path`` instead of the temporary file."""
    if tmp is not None and tmp not in str(exc) and exc.filename not in (None, tmp):
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def atomic_write_with(path: str | os.PathLike, writer: Callable[[str], object]) -> None:
    """Call ``writer(tmp_path)`` on a temporary file next to ``path``, then rename it into place.

    The temporary file keeps the destination's suffix (some writers choose the format by it) and
    gets the permissions an ordinary new file would have.  Errors name ``path``, never the
    temporary file.

    Raises
    ------
    IsADirectoryError
        ``path`` is an existing folder or ends in a path separator (``out/``).
    FileNotFoundError
        The folder of ``path`` does not exist.
    OSError
        The folder is not writable (``PermissionError``) or another system error; the destination
        is then left untouched.
    """
    raw = os.fspath(path)
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder; give a file name", raw)
    if raw.endswith(("/", os.sep)):
        raise IsADirectoryError(errno.EISDIR, "ends in a path separator (a folder); give a file name",
                                raw)
    parent = path.parent
    if not parent.is_dir():
        if parent.exists():
            raise NotADirectoryError(errno.ENOTDIR, f"cannot write: {parent} is not a folder", raw)
        raise FileNotFoundError(errno.ENOENT, f"cannot write: folder {parent} does not exist", raw)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix or ".tmp",
                                   dir=parent)
    except OSError as exc:
        raise _user_error(exc, path, None) from None
    os.close(fd)
    try:
        writer(tmp)
        os.chmod(tmp, _default_mode(path))
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
            raise _user_error(exc, path, tmp) from exc
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


def stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Temporary files :func:`atomic_write_with` left next to ``path`` when killed mid-write.

    They are named ``.<stem>.<8 random characters><suffix>`` in the folder of ``path``.  Only
    call this while no other writer of ``path`` can be running (e.g. under a lock on it).

    Returns
    -------
    list of Path
        The leftovers, sorted (possibly empty).
    """
    import re

    path = Path(path)
    pattern = re.compile(rf"^\.{re.escape(path.stem)}\.[A-Za-z0-9_]{{8}}{re.escape(path.suffix or '.tmp')}$")
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    return sorted(p for p in entries if pattern.match(p.name) and p.is_file())
