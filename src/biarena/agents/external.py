"""Adapters for systems biarena does not run itself: an HTTP endpoint, a command, a Python callable.

Each gets the question as JSON: {"question_id", "question", "language", "database", "dialect",
"schema", "knowledge", "now"} and returns JSON: {"sql": "...", "answer": "...", "queries": [...],
"plan": "..."} (every field optional). Queries run through biarena's sandbox, never the system's.
An http or command system has a total deadline per question and a reply size limit; every system has
a cap on the queries one reply may run.
"""

import contextlib
import http.client
import importlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from biarena.agents.system import AgentEnv, run_step
from biarena.db import describe_schema
from biarena.errors import UsageError
from biarena.records import Answer, Question, SystemSpec
from biarena.records.sanitize import clean_value, describe_changes

DEFAULT_DEADLINE = 300.0
"""Seconds an http or command system may take for one question, all in all."""
DEFAULT_MAX_REPLY_BYTES = 16 * 1024 * 1024
"""Largest reply read from an http or command system."""
DEFAULT_MAX_QUERIES = 20
"""Most queries run for one reply."""

_CHUNK = 64 * 1024
_STDERR_KEPT = 4096


class SystemTimeout(Exception):
    """The system did not reply within its deadline."""


class ReplyTooLarge(Exception):
    """The system's reply is over the size limit."""


class SystemFailed(Exception):
    """The system answered with a failure (an HTTP error status, a non-zero exit, a reply that is not JSON)."""


_OWN_ERRORS = (SystemTimeout, ReplyTooLarge, SystemFailed)


def request_payload(question: Question, env: AgentEnv) -> dict[str, Any]:
    """What an external system is told about a question."""
    db = env.databases.get(question.database)
    ref = env.benchmark.databases.get(question.database)
    anchor = env.benchmark.anchor_for(question)
    return {
        "question_id": question.id,
        "question": question.text,
        "language": question.language,
        "database": question.database,
        "dialect": db.dialect,
        "schema": describe_schema(db, sample_rows=2, description=ref.description if ref else None),
        "knowledge": env.benchmark.knowledge,
        "now": anchor.isoformat(sep=" ") if anchor else None,
    }


def answer_from_reply(
    reply: Any, question: Question, env: AgentEnv, system: SystemSpec, max_queries: int = DEFAULT_MAX_QUERIES
) -> Answer:
    """Turn an external system's JSON reply into an Answer, running its SQL (at most `max_queries`) in the sandbox."""

    def failed(error: str, notes: list[str] | None = None) -> Answer:
        return Answer(question_id=question.id, system=system, status="error", error=error, sanitized=notes or [])

    if not isinstance(reply, dict):
        return failed(f"the system replied {_kind(reply)}, not a JSON object")
    reply, changes = clean_value(reply)
    notes = [describe_changes(changes)] if changes else []
    for name in ("sql", "plan"):
        if reply.get(name) is not None and not isinstance(reply[name], str):
            return failed(f"the reply's '{name}' is {_kind(reply[name])}, not a string", notes)
    queries = reply.get("queries")
    if queries is None:
        queries = []
    elif isinstance(queries, str):
        queries = [queries]
    elif not isinstance(queries, list):
        return failed(f"the reply's 'queries' is {_kind(queries)}, not a list of strings", notes)
    for index, query in enumerate(queries):
        if not isinstance(query, str):
            return failed(f"the reply's 'queries' item {index} is {_kind(query)}, not a string", notes)
    final = reply.get("sql")
    queries = list(queries)
    if final and final not in queries:
        queries.append(final)
    if len(queries) > max_queries:
        notes.append(f"{len(queries) - max_queries} of {len(queries)} queries not run (over the cap of {max_queries})")
        queries = [*queries[: max_queries - 1], queries[-1]] if max_queries > 1 else queries[-1:]
    steps = [run_step(env, question, sql)[0] for sql in queries]
    text = reply.get("answer")
    if text is not None and not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False)
    return Answer(
        question_id=question.id,
        system=system,
        plan=reply.get("plan"),
        steps=steps,
        final_sql=final or (queries[-1] if queries else None),
        text=text,
        sanitized=notes,
    )


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


class _External:
    name = "external"
    target = ""
    max_queries = DEFAULT_MAX_QUERIES

    def __init__(self) -> None:
        self._live: dict[int, Callable[[], None]] = {}
        self._live_lock = threading.Lock()
        self._cancelled = False

    def cancel(self) -> None:
        """Stop every call in flight and refuse new ones (an interrupted run): commands killed, connections cut."""
        with self._live_lock:
            self._cancelled = True
            stoppers = list(self._live.values())
        for stop in stoppers:
            stop()

    @contextlib.contextmanager
    def _in_flight(self, stop: Callable[[], None]) -> Iterator[None]:
        with self._live_lock:
            if self._cancelled:
                stop()
                raise SystemFailed("the run was interrupted")
            self._live[id(stop)] = stop
        try:
            yield
        finally:
            with self._live_lock:
                self._live.pop(id(stop), None)

    def spec_options(self) -> dict[str, Any]:
        """Where the system is (and its query cap, when not the default)."""
        options: dict[str, Any] = {"target": self.target}
        if self.max_queries != DEFAULT_MAX_QUERIES:
            options["max_queries"] = self.max_queries
        return options

    def call(self, payload: dict[str, Any]) -> Any:
        raise NotImplementedError

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Ask the external system, then replay its SQL safely."""
        system = SystemSpec(agent=self.name, options={"target": self.target})
        try:
            reply = self.call(request_payload(question, env))
            answer = answer_from_reply(reply, question, env, system, self.max_queries)
        except Exception as error:  # whatever the system does wrong is recorded on the answer
            message = str(error) if isinstance(error, _OWN_ERRORS) else f"{type(error).__name__}: {error}"
            return Answer(question_id=question.id, system=system, status="error", error=message[:500])
        if answer.status == "ok" and not answer.steps and not answer.text:
            answer.status, answer.error = "error", "the reply has no sql, queries or answer"
        return answer


def _limits(timeout: float, max_reply_bytes: int, max_queries: int | None) -> tuple[float, int, int]:
    if not timeout > 0:
        raise UsageError("--system-timeout must be more than 0 seconds")
    if max_reply_bytes < 1:
        raise UsageError("--max-reply-bytes must be at least 1")
    return float(timeout), int(max_reply_bytes), _query_cap(max_queries)


def _query_cap(max_queries: int | None) -> int:
    queries = DEFAULT_MAX_QUERIES if max_queries is None else max_queries
    if queries < 1:
        raise UsageError("--max-queries must be at least 1")
    return int(queries)


class HttpSystem(_External):
    """POSTs the question as JSON to a URL and reads a JSON answer, within a total deadline and a size limit."""

    name = "http"

    def __init__(
        self,
        url: str | None = None,
        system_timeout: float = DEFAULT_DEADLINE,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        max_queries: int | None = None,
    ) -> None:
        super().__init__()
        if not url:
            raise UsageError("the http system needs --url URL")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"--url {url}: not an http:// or https:// URL")
        try:
            parts.port  # noqa: B018 (a bad port raises here)
        except ValueError:
            raise UsageError(f"--url {url}: bad port") from None
        self.target = url
        self.timeout, self.max_reply_bytes, self.max_queries = _limits(system_timeout, max_reply_bytes, max_queries)

    def call(self, payload: dict[str, Any]) -> Any:
        """One POST; the connection is cut at the deadline however slowly the server sends."""
        parts = urlsplit(self.target)
        deadline = time.monotonic() + self.timeout
        connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = connection_class(parts.hostname or "", parts.port, timeout=self.timeout)
        cut = threading.Timer(self.timeout, _shut, (connection,))
        cut.daemon = True
        cut.start()
        try:
            with self._in_flight(lambda: _shut(connection)):
                body, response = self._exchange(connection, parts.path, parts.query, payload, deadline)
        except (OSError, http.client.HTTPException) as error:
            if isinstance(error, TimeoutError) or time.monotonic() >= deadline:
                raise SystemTimeout(f"no complete reply within {self.timeout:g} s (--system-timeout)") from None
            raise
        finally:
            cut.cancel()
            connection.close()
        if time.monotonic() >= deadline:
            raise SystemTimeout(f"no complete reply within {self.timeout:g} s (--system-timeout)")
        if not 200 <= response.status < 300:
            preview = bytes(body[:300]).decode("utf-8", "replace")
            raise SystemFailed(f"HTTP {response.status} {response.reason}: {preview}")
        return _parse(body)

    def _exchange(
        self, connection: http.client.HTTPConnection, path: str, query: str, payload: dict[str, Any], deadline: float
    ) -> tuple[bytearray, http.client.HTTPResponse]:
        """Send the request and read the reply within the deadline and the size limit."""
        path = (path or "/") + (f"?{query}" if query else "")
        data = json.dumps(payload).encode("utf-8")
        connection.request("POST", path, body=data, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        declared = response.getheader("Content-Length")
        if declared and declared.isdigit() and int(declared) > self.max_reply_bytes:
            raise ReplyTooLarge(
                f"the reply is {int(declared):,} bytes, over --max-reply-bytes ({self.max_reply_bytes:,} bytes)"
            )
        body = bytearray()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SystemTimeout(f"no complete reply within {self.timeout:g} s (--system-timeout)")
            if connection.sock is not None:
                connection.sock.settimeout(remaining)
            chunk = response.read1(_CHUNK)
            if not chunk:
                break
            body += chunk
            if len(body) > self.max_reply_bytes:
                raise ReplyTooLarge(f"the reply is over --max-reply-bytes ({self.max_reply_bytes:,} bytes)")
        return body, response


def _parse(reply: bytes | bytearray) -> Any:
    """The JSON value of a reply."""
    try:
        return json.loads(bytes(reply))
    except UnicodeDecodeError as error:
        raise SystemFailed(f"the reply is not UTF-8 text ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        start = bytes(reply[:80]).decode("utf-8", "replace")
        raise SystemFailed(f"the reply is not JSON ({error.msg} at char {error.pos}): {start!r}") from None
    except RecursionError:
        raise SystemFailed("the reply is JSON nested too deeply") from None


def _shut(connection: http.client.HTTPConnection) -> None:
    """Wake a read blocked on a server that stopped sending (or sends a byte at a time)."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class CommandSystem(_External):
    """Runs a user's command with the question as JSON on stdin; reads JSON from stdout, within limits."""

    name = "command"

    def __init__(
        self,
        command: str | None = None,
        system_timeout: float = DEFAULT_DEADLINE,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        max_queries: int | None = None,
    ) -> None:
        super().__init__()
        if not command or not command.strip():
            raise UsageError("the command system needs --command 'CMD ARGS'")
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise UsageError(f"--command {command}: {error}") from None
        program = self.argv[0]
        found = shutil.which(program) if os.sep not in program else (program if os.access(program, os.X_OK) else None)
        if found is None or os.path.isdir(found):
            raise UsageError(f"--command: '{program}' is not a program that can be run (not found or not executable)")
        self.target = command
        self.timeout, self.max_reply_bytes, self.max_queries = _limits(system_timeout, max_reply_bytes, max_queries)

    def call(self, payload: dict[str, Any]) -> Any:
        """One process (and its children) per question; killed at the deadline or when its output is too large."""
        process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=hasattr(os, "killpg"),
        )
        stdout, stderr = bytearray(), bytearray()
        too_large = threading.Event()

        def read_stdout() -> None:
            assert process.stdout is not None
            while chunk := process.stdout.read1(_CHUNK):
                stdout.extend(chunk)
                if len(stdout) > self.max_reply_bytes:
                    too_large.set()
                    _kill(process)
                    return

        def read_stderr() -> None:
            assert process.stderr is not None
            while chunk := process.stderr.read1(_CHUNK):
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
        if too_large.is_set():
            raise ReplyTooLarge(f"the output is over --max-reply-bytes ({self.max_reply_bytes:,} bytes)")
        if timed_out:
            raise SystemTimeout(f"no reply within {self.timeout:g} s (--system-timeout); the command was stopped")
        if process.returncode != 0:
            detail = bytes(stderr).decode("utf-8", "replace").strip()[-300:]
            raise SystemFailed(f"exit code {process.returncode}: {detail}")
        return _parse(stdout)


def _kill(process: subprocess.Popen) -> None:
    """Stop the command and whatever it started."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


class PythonSystem(_External):
    """Calls `module:function(payload) -> dict`."""

    name = "python"

    def __init__(self, function: str | None = None, max_queries: int | None = None) -> None:
        super().__init__()
        if not function or ":" not in function:
            raise UsageError("the python system needs --function module:function")
        self.target = function
        self.max_queries = _query_cap(max_queries)
        module, _, name = function.partition(":")
        try:
            self.function: Callable[[dict], Any] = getattr(importlib.import_module(module), name)
        except Exception as error:  # an import runs the module's code: any failure is the user's to fix
            raise UsageError(f"cannot load {function}: {type(error).__name__}: {error}") from None
        if not callable(self.function):
            raise UsageError(f"{function} is not a function")

    def call(self, payload: dict[str, Any]) -> Any:
        """One call."""
        return self.function(payload)
