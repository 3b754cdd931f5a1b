"""synth: a vertical's business database generated and verified, as `biarena synth VERTICAL -o PATH`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def synth(vertical: str | Path, out: str | Path, **settings: Any) -> Path:
    """Generate the database of `vertical` (a built-in name such as `food_delivery`, or a spec .yaml's path) at
    `out`, verify every rule of its spec on the data, and return the path.

    `settings` are the other fields of `biarena.synth.synth_settings.SynthSettings`: `scale`, `seed`, `format`
    (`sqlite`, `duckdb`, `parquet`; default from `out`), `verify`, `partitions`, `workers`, `engine`, `address`.
    A name it does not take is a UsageError that suggests the closest one; a rule that does not hold in the data
    a FormatError."""
    from biarena.synth.execute_synth import execute_synth
    from biarena.synth.synth_settings import SynthSettings

    values = {"vertical": str(vertical), "out": Path(out), **settings}
    return execute_synth(SynthSettings.of("synth()", values), print_messages)
