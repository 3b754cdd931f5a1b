"""print_messages: how the Python API shows a workflow's events: its messages as lines on stderr, nothing else."""

import sys
from typing import Any

from biarena.events import Message


def print_messages(event: Any) -> None:
    """Print a `Message`, a model's note and a stop's reason on stderr; progress events pass silently."""
    from biarena.llm.notices import Notice
    from biarena.runner.events import RunStopped

    if isinstance(event, Message) or (isinstance(event, Notice) and event.kind == "note"):
        print(event.text, file=sys.stderr)
    elif isinstance(event, RunStopped):
        print(event.line("call the same function again with retry_errors=True"), file=sys.stderr)
