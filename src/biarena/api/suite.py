"""suite: the CORGI suite built as a benchmark directory, as `biarena suite corgi -o DIR`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def suite(out: str | Path, **settings: Any) -> Path:
    """Build the CORGI suite (simulated verticals, four question types) into the benchmark directory `out`
    (absent or empty) and return it.

    `settings` are the other fields of `biarena.generate.suite_settings.SuiteSettings`: `verticals` (names or
    aliases; default all), `scale`, `seed`, `audit`. A name it does not take is a UsageError that suggests the
    closest one."""
    from biarena.generate.execute_suite import execute_suite
    from biarena.generate.suite_settings import SuiteSettings

    return execute_suite(SuiteSettings.of("suite()", {"out": Path(out), **settings}), print_messages)
