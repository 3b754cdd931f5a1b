"""The command system: a program run once per question, the question as JSON on its stdin and its answer as JSON
on its stdout, within a deadline and a size limit."""

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import threading
from typing import Any

from pydantic import field_validator

from biarena.agents.external import (
    READ_CHUNK,
    ReplyTooLarge,
    ServiceOptions,
    ServiceSystem,
    SystemFailed,
    SystemTimeout,
    said_text,
)
from biarena.errors import UsageError

_STDERR_KEPT = 4096
"""Bytes of a command's stderr kept, for the error of a failed run."""


class CommandOptions(ServiceOptions):
    """Options of the command system."""

    command: str
    """Command run once per question, with the question as JSON on stdin and the reply as JSON on stdout."""

    @field_validator("command")
    @classmethod
    def _split(cls, command: str) -> str:
        if not command.strip():
            raise ValueError("must name a program")
        shlex.split(command)  # a ValueError (an unclosed quotation) is the user's to fix
        return command


class CommandSystem(ServiceSystem):
    """Runs a user's command with the question as JSON on stdin; reads JSON from stdout, within limits."""

    name = "command"
    target_option = "command"
    Options = CommandOptions
    options: CommandOptions

    def __init__(self, options: CommandOptions | None = None, **values: Any) -> None:
        super().__init__(options, **values)
        self.argv = shlex.split(self.options.command)
        program = self.argv[0]
        found = shutil.which(program) if os.sep not in program else (program if os.access(program, os.X_OK) else None)
        if found is None or os.path.isdir(found):
            raise UsageError(
                f"agent 'command': option command: '{program}' is not a program that can be run "
                "(not found or not executable)"
            )

    def exchange(self, payload: dict[str, Any]) -> bytearray:
        """One process (and its children) per question; killed at the deadline or when its output is too large."""
        process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=hasattr(os, "killpg"),
        )
        stdout, stderr = bytearray(), bytearray()
        too_large: list[ReplyTooLarge] = []

        def read_stdout() -> None:
            assert process.stdout is not None
            try:
                self.read_reply(process.stdout.read1, stdout, "the output")
            except ReplyTooLarge as error:
                too_large.append(error)
                _kill(process)

        def read_stderr() -> None:
            assert process.stderr is not None
            while chunk := process.stderr.read1(READ_CHUNK):
                if len(stderr) < _STDERR_KEPT:
                    stderr.extend(chunk[: _STDERR_KEPT - len(stderr)])

        def write_stdin() -> None:
            assert process.stdin is not None
            try:
                process.stdin.write(json.dumps(payload).encode("utf-8"))
                process.stdin.close()
            except OSError:  # the command exited without reading its input
                pass

        threads = [threading.Thread(target=t, daemon=True) for t in (read_stdout, read_stderr, write_stdin)]
        for thread in threads:
            thread.start()
        try:
            with self._in_flight(lambda: _kill(process)):
                process.wait(timeout=self.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill(process)
            process.wait()
        for thread in threads:
            thread.join(timeout=2.0)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if too_large:
            raise too_large[0]
        if timed_out:
            raise SystemTimeout(f"no reply within {self.timeout:g} s (system_timeout); the command was stopped")
        if process.returncode != 0:
            detail = said_text(stderr, _STDERR_KEPT).strip()[-300:]
            raise SystemFailed(f"exit code {process.returncode}: {detail}")
        return stdout


def _kill(process: subprocess.Popen) -> None:
    """Stop the command and whatever it started."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass
