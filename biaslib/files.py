"""Writing files whole or not at all: the one helper every writer of the package uses.

A file the project writes (a stored table and its provenance, a fine-tuning run, a
corpus extract, a downloaded sample) is first written to a temporary file in the same
folder and then renamed onto its name. A rename within one folder is atomic, so an
error, an interruption or a full disk part-way leaves the old file whole (or no file),
never half of one that a later run would take for a finished result.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["replacing", "temporary_beside", "write_atomically", "write_text_atomically"]


def _umask() -> int:
    # os.umask can only be read by setting it; set it back at once.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def temporary_beside(path: Path) -> Path:
    """A new, empty temporary file in ``path``'s folder, named after it.

    It keeps ``path``'s suffixes (``.seat_may.abc123.tmp.csv``, ``….tmp.npz``), so that
    writers that infer a format from the name (``numpy.savez``, pandas' compression)
    write the same bytes as to ``path`` itself; the leading dot keeps it out of
    listings. Its permissions are those a plain ``open`` would give.
    """
    base, dot, suffixes = path.name.partition(".")
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{base}.",
                                suffix=f".tmp{dot}{suffixes}")
    os.close(fd)
    # mkstemp creates the file readable by its owner only; a stored table is not private.
    os.chmod(name, 0o666 & ~_umask())
    return Path(name)


@contextlib.contextmanager
def replacing(*paths: str | os.PathLike[str]) -> Iterator[tuple[Path, ...]]:
    """Temporary files for ``paths``, renamed onto them when the block ends without error.

    Write every file of a set that belongs together (a table and its provenance) into
    the temporaries the block receives; they replace the real files only after the
    last one is written. On an error every temporary is removed and the old files
    stay as they were.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with replacing(folder / "a.txt", folder / "b.txt") as (a, b):
    ...     _ = a.write_text("A"), b.write_text("B")
    >>> sorted(p.name for p in folder.iterdir())
    ['a.txt', 'b.txt']
    """
    targets = [Path(p) for p in paths]
    temporary: list[Path] = []
    try:
        for target in targets:
            temporary.append(temporary_beside(target))
        yield tuple(temporary)
        for tmp in temporary:
            _flush_to_disk(tmp)
        for tmp, target in zip(temporary, targets, strict=True):
            os.replace(tmp, target)
    finally:
        for tmp in temporary:
            tmp.unlink(missing_ok=True)


def _flush_to_disk(path: Path) -> None:
    # Without fsync a power cut right after the rename can leave an empty file under
    # the real name on some file systems (ext4 delayed allocation).
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def write_atomically(path: str | os.PathLike[str], write: Callable[[Path], object]) -> None:
    """Write ``path`` whole or not at all: ``write`` fills a temporary file, renamed onto it.

    Parameters
    ----------
    path
        The file to write (its folder must exist).
    write
        Called with the temporary file's path (which has ``path``'s suffixes); it
        writes the whole content there.

    A crash or an error while writing leaves the old file (or none) in place, never
    half a file.
    """
    with replacing(path) as (tmp,):
        write(tmp)


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (:func:`write_atomically`)."""
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
