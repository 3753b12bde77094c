"""Checks every command makes before it works: outputs never replace inputs, work fits in memory,
and a terminated run cleans up after itself.

- :func:`check_paths` resolves the input and output paths of a command (symbolic links, ``..``,
  hard links) and refuses an output that is an input, or an output folder that would write over
  an input, naming both;
- :func:`available_memory` / :func:`check_memory` refuse up front work whose arrays cannot fit;
- :func:`terminate_as_interrupt` turns SIGTERM into the same clean stop as Ctrl-C
  (:class:`Terminated`, a :class:`KeyboardInterrupt`), so ``finally`` blocks and the atomic writes'
  clean-up run; :func:`shutdown_worker_pools` stops idle joblib worker processes on exit;
- :func:`named_standard_output` makes a failed write to the standard output (a full disk) name it;
- :class:`CreatedFiles` remembers the files and folders a run creates and removes them again when
  the run does not finish.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence, TextIO

from . import CLIError

#: ``(option, path)``: an input or output as the user gave it (``-`` and None are skipped).
PathArg = tuple[str, "str | os.PathLike | None"]


def _real(path: str | os.PathLike) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def _same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    if _real(a) == _real(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False


def _given(pairs: Iterable[PathArg]) -> list[tuple[str, str]]:
    return [(opt, os.fspath(p)) for opt, p in pairs if p is not None and os.fspath(p) != "-"]


def _shown(option: str, path: str) -> str:
    return path if not option else f"{option} {path}"


def check_paths(inputs: Iterable[PathArg], outputs: Iterable[PathArg] = (),
                folders: Iterable[PathArg] = ()) -> None:
    """Refuse, before any work, an output that would replace an input.

    Parameters
    ----------
    inputs : iterable of (option, path)
        Files the command reads (``("FILE", "a.csv")``, ``("--state", "s.json")``).
    outputs : iterable of (option, path)
        Files the command writes.  An output is refused when it is an input after resolving
        symbolic links and ``..``, or a hard link to it.
    folders : iterable of (option, path)
        Output folders whose files are not known in advance; refused when an input lies inside
        (or is) the folder.

    Raises
    ------
    CLIError
        Naming the output option and path and the input option and path; also an empty file name,
        and ``-`` (standard input or output) when that stream is closed.
    """
    inputs, outputs = list(inputs), list(outputs)
    for pairs, stream, name in ((inputs, sys.stdin, "input"), (outputs, sys.stdout, "output")):
        for opt, path in pairs:
            if path is not None and os.fspath(path) == "":
                raise CLIError(f"{opt or 'a file name'}: an empty file name")
            if path is not None and os.fspath(path) == "-" and _closed(stream):
                raise CLIError(f"{opt} '-': the standard {name} is closed")
    ins = _given(inputs)
    outs = _given(outputs)
    for i, (oopt, opath) in enumerate(outs):
        for iopt, ipath in ins:
            if _same_file(opath, ipath):
                kind = "folder" if os.path.isdir(ipath) else "file"
                same = "" if os.path.normpath(opath) == os.path.normpath(ipath) else f" (the same {kind})"
                raise CLIError(f"{_shown(oopt, opath)} would write over the input "
                               f"{_shown(iopt, ipath)}{same}; write the output elsewhere")
        for oopt2, opath2 in outs[i + 1:]:
            if _same_file(opath, opath2):
                raise CLIError(f"{_shown(oopt, opath)} and {_shown(oopt2, opath2)} are the same "
                               "file; give two different outputs")
    for fopt, folder in _given(folders):
        root = _real(folder)
        for iopt, ipath in ins:
            real = _real(ipath)
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                raise CLIError(f"{_shown(fopt, folder)} holds the input {_shown(iopt, ipath)}; "
                               "the output folder must not contain the inputs")


def available_memory() -> int | None:
    """Bytes of physical memory available now, or None where the platform does not say."""
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(need: float, what: str) -> None:
    """Refuse work needing about ``need`` bytes when less memory than that is available.

    Parameters
    ----------
    need : float
        Estimated peak bytes.
    what : str
        The options that set the size (``"--population 100000000"``), for the message.

    Raises
    ------
    CLIError
        ``"{what} needs about X GiB of memory; Y GiB are available"``.
    """
    avail = available_memory()
    if avail is not None and need > avail:
        raise CLIError(f"{what} needs about {need / 2**30:.1f} GiB of memory; "
                       f"{avail / 2**30:.1f} GiB are available")


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when the process receives SIGTERM: the same clean stop as
    Ctrl-C (``finally`` blocks run, temporary files are removed), exit code 143."""


def _raise_terminated(signum, frame):  # pragma: no cover - exercised through a subprocess
    raise Terminated()


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` instead of killing the process.

    Only installed from the main thread (signal handlers cannot be set elsewhere); the previous
    handler is restored on exit.
    """
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except (ValueError, OSError, AttributeError):  # not the main thread, or no SIGTERM here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _NamedOutput:
    """The standard output as a command writes to it: a write or flush that fails (a full disk, a
    device error) raises its ``OSError`` naming ``<stdout>``, as a failed write to a file names the
    file; everything else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with _naming_stdout():
            return self._stream.write(text)

    def writelines(self, lines: Iterable[str]) -> None:
        with _naming_stdout():
            self._stream.writelines(lines)

    def flush(self) -> None:
        with _naming_stdout():
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _naming_stdout() -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = "<stdout>"
        raise


class _ClosedOutput:
    """The standard output when the process was started without one (``>&-``): a write is an
    error, not text silently lost (``print`` to a ``None`` stream writes nothing)."""

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise CLIError("the standard output is closed; nothing can be written to it")

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False


def _closed(stream: object) -> bool:
    return stream is None or isinstance(stream, _ClosedOutput)


@contextlib.contextmanager
def named_standard_output() -> Iterator[None]:
    """Within the block, a failed write to the standard output names it (``<stdout>: No space left
    on device``), and what the block left in its buffer is written before the block ends, so that
    such a failure is the command's error (exit code 2), not a message at the interpreter's exit.

    A closed standard output (None) is one that refuses every write (a :class:`CLIError`), and the
    paths' check refuses ``-`` as an output.
    """
    stream = sys.stdout
    sys.stdout = _ClosedOutput() if stream is None else _NamedOutput(stream)  # type: ignore[assignment]
    try:
        yield
        sys.stdout.flush()
    finally:
        if isinstance(sys.stdout, (_NamedOutput, _ClosedOutput)):
            sys.stdout = stream


def shutdown_worker_pools() -> None:
    """Stop joblib's reusable worker processes, if this process started any.

    joblib keeps its process pool alive after a parallel run (to reuse it); a command that ends,
    or is stopped, should not leave idle workers behind.
    """
    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None) if module is not None else None
    if executor is not None:
        with contextlib.suppress(Exception):
            executor.shutdown(wait=True, kill_workers=True)


class CreatedFiles:
    """The files and folders one run creates, to be removed when the run does not finish.

    Only paths that did not exist when they were registered are removed: an earlier result that
    the run replaced is not deleted.
    """

    def __init__(self) -> None:
        self._files: list[Path] = []
        self._folders: list[Path] = []

    def folder(self, path: str | os.PathLike) -> list[Path]:
        """Create ``path`` (with its parents) and remember the folders that were new."""
        path = Path(path)
        new = [d for d in [path, *path.parents] if not d.exists()]
        path.mkdir(parents=True, exist_ok=True)
        self._folders.extend(new)  # deepest first
        return new

    def files(self, paths: Sequence[str | os.PathLike]) -> None:
        """Remember the files of ``paths`` that do not exist yet (they are about to be written)."""
        self._files.extend(Path(p) for p in paths if not Path(p).exists())

    def remove(self) -> None:
        """Remove the remembered files, then the remembered folders that are empty."""
        for f in self._files:
            with contextlib.suppress(OSError):
                f.unlink()
        for d in self._folders:
            with contextlib.suppress(OSError):
                d.rmdir()
