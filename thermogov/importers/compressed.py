"""Compressed logs are read, archives are refused with the command that unpacks them.

Boards rotate their logs with logrotate, which gzips the old ones by default (``compress``
with ``gzip``; logrotate(8)), and people copy logs off a board as ``log.gz`` / ``.bz2`` /
``.xz``.  Those three are single compressed streams that Python's standard library reads, so
they are decompressed here, before any format looks at the text, never beyond the same size
bound as a plain log (a 1 KB "zip bomb" must not fill memory).  A zip archive holding one file
(a log attached to a forum post or an e-mail) is read the same way; one with several files, a
tar or 7z archive, and zstd (no reader in the standard library) are refused in one line naming
the command that unpacks them, instead of "looks like a binary file".

Magic numbers: gzip 1f 8b (RFC 1952), bzip2 ``BZh``, xz fd 37 7a 58 5a 00 (the xz file
format spec), zstd 28 b5 2f fd (RFC 8878), zip ``PK\\x03\\x04`` (PKWARE APPNOTE), 7z
``7z\\xbc\\xaf\\x27\\x1c``, POSIX tar ``ustar`` at offset 257.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, BinaryIO

from thermogov.interfaces import LogFormatError

_STREAMS: tuple[tuple[bytes, str, Callable[[BinaryIO], io.BufferedIOBase]], ...] = (
    (b"\x1f\x8b", "gzip", lambda f: gzip.GzipFile(fileobj=f)),
    (b"BZh", "bzip2", bz2.BZ2File),
    (b"\xfd7zXZ\x00", "xz", lzma.LZMAFile),
)
_ZIP_MAGIC = b"PK\x03\x04"
_ARCHIVES: tuple[tuple[bytes, str, str], ...] = (
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive", "extract it with 7z x"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it with zstd -d"),
)


def is_tar(data: bytes) -> bool:
    return data[257:262] == b"ustar"


# Streams inside streams read before refusing: `gzip log.gz` run twice (a rotated log compressed
# again for mailing) gives a gzip inside a gzip; more layers than this are no log.
MAX_NESTED_STREAMS = 3


def decompressed(data: bytes, source: str, limit: int, depth: int = 1) -> tuple[bytes, str | None]:
    """(bytes of the log, the compression read or None); LogFormatError for an archive or a
    damaged or oversized stream.  ``limit`` bounds the decompressed size.  A stream whose
    content is again a stream (a gzip of a gzip) is opened in turn, up to ``MAX_NESTED_STREAMS``:
    read once, its content was refused as "a binary file", a cause that names no fix."""
    if data.startswith(_ZIP_MAGIC):
        return _one_zip_member(data, source, limit), "zip"
    for magic, what, fix in _ARCHIVES:
        if data.startswith(magic):
            raise LogFormatError(f"{source}: {what}, not a log; {fix} and import the log inside")
    if is_tar(data):
        raise LogFormatError(
            f"{source}: a tar archive, not a log; extract it (tar -xf) and import the log inside"
        )
    for magic, name, opener in _STREAMS:
        if not data.startswith(magic):
            continue
        try:
            with opener(io.BytesIO(data)) as stream:
                out = _bounded(stream, f"{source}: {name} log", limit)
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
            raise LogFormatError(
                f"{source}: {name} data is damaged or cut short ({exc}); copy the file again or decompress what is left"
            ) from None
        if is_tar(bytes(out[:512])):
            raise LogFormatError(
                f"{source}: a compressed tar archive; extract it (tar -xf) and import the log inside"
            )
        if any(bytes(out[: len(m)]) == m for m, _, _ in _STREAMS):
            if depth >= MAX_NESTED_STREAMS:
                raise LogFormatError(
                    f"{source}: {depth} compressed streams inside each other and still not a log; "
                    "decompress it by hand and import the log inside"
                )
            inner, inner_name = decompressed(bytes(out), source, limit, depth + 1)
            return inner, f"{inner_name} inside {name}"
        return out, name
    return data, None


def _bounded(stream: BinaryIO | IO[bytes] | io.BufferedIOBase, what: str, limit: int) -> bytes:
    """All bytes of a decompressing stream, refused once they pass ``limit``."""
    out = bytearray()
    while chunk := stream.read(1 << 20):
        out += chunk
        if len(out) > limit:
            raise LogFormatError(
                f"{what} is larger than {limit >> 20} MiB once decompressed; decompress it and split the log "
                "(e.g. with split -l)"
            )
    return bytes(out)


def _one_zip_member(data: bytes, source: str, limit: int) -> bytes:
    """The bytes of the one file in a zip archive, at most ``limit`` of them."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            files = [m for m in archive.infolist() if not m.is_dir()]
            if len(files) != 1:
                names = ", ".join(repr(m.filename) for m in files[:5]) + (" ..." if len(files) > 5 else "")
                raise LogFormatError(
                    f"{source}: a zip archive of {len(files)} files ({names or 'none'}); unzip it and import one log"
                )
            with archive.open(files[0]) as member:
                out = _bounded(member, f"{source}: the log in the zip archive", limit)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error) as exc:
        raise LogFormatError(
            f"{source}: zip archive is damaged or encrypted ({exc}); unzip it and import the log"
        ) from None
    return out


__all__ = ["decompressed", "is_tar"]
