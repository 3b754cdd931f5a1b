"""staged_directory: build a directory beside its target and swap it in only when the build succeeds."""

import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _fresh_directory(parent: Path, prefix: str) -> Path:
    """A new empty directory in `parent`, created with the user's umask (mkdtemp's would be 0700)."""
    for _ in range(100):
        candidate = parent / f"{prefix}{secrets.token_hex(6)}"
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"no free name for a staging directory in {parent}")


@contextmanager
def staged_directory(target: Path, prefix: str = ".biarena-") -> Iterator[Path]:
    """Yield an empty staging directory; on success it replaces `target`, on failure it disappears.

    An existing `target` is moved aside first and removed only once the new one is in place, so a
    failure at any point leaves either the old directory or the new one, never neither.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = _fresh_directory(target.parent, prefix)
    try:
        yield staging
        if target.exists() or target.is_symlink():
            aside = _fresh_directory(target.parent, f".{target.name}.old-")
            os.replace(target, aside)
            try:
                os.replace(staging, target)
            except OSError:
                os.replace(aside, target)
                raise
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
