"""decode_text, read_text, read_named_file: UTF-8 text files read strictly; a bad byte or an unreadable file is one
error naming it."""

from pathlib import Path

from biarena.errors import FormatError, NotFoundError


def decode_text(data: bytes, where: str) -> str:
    """Decode UTF-8 (a leading byte-order mark is dropped); FormatError names the offset of a bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FormatError(f"{where}: not UTF-8 text (byte {error.start}: {error.reason})") from None


def read_text(path: Path) -> str:
    """The text of a UTF-8 file; NotFoundError or FormatError with the file's name."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise NotFoundError(f"{path}: file not found") from None
    except OSError as error:
        raise FormatError(f"{path}: cannot be read ({error.strerror or error})") from None
    return decode_text(data, str(path))


def read_named_file(path: Path, what: str) -> str:
    """The text of a file the user named as `what` (a plan, a models file, a price table): NotFoundError
    `WHAT not found: PATH`, or FormatError `PATH: cannot read the WHAT: REASON` on one line."""
    if not path.is_file():
        raise NotFoundError(f"{what} not found: {path}")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(f"{path}: cannot read the {what}: {' '.join(str(error).split())}") from None
