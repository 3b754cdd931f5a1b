"""The command line run inside the test process, as its entry point runs it: quicker than a fresh process."""

import io
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest.mock import patch

from biarena.cli import main


def cli(*args: str | Path) -> subprocess.CompletedProcess:
    """Run `biarena ARGS` through `biarena.cli.main` with stdout and stderr captured; any other exception escapes."""
    out, err = io.StringIO(), io.StringIO()
    code: int = 0
    with redirect_stdout(out), redirect_stderr(err), patch.object(sys, "argv", ["biarena", *map(str, args)]):
        try:
            main()
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    return subprocess.CompletedProcess(list(map(str, args)), code, out.getvalue(), err.getvalue())
