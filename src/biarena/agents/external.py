"""Adapters for systems biarena does not run itself: an HTTP endpoint, a command, a Python callable.

Each gets the question as JSON: {"question_id", "question", "language", "database", "dialect",
"schema", "knowledge", "now"} and returns JSON: {"sql": "...", "answer": "...", "queries": [...],
"plan": "..."} (every field optional). Queries run through biarena's sandbox, never the system's.
An http or command system has a total deadline per question and a reply size limit; every system has
a cap on the queries one reply may run. What a system says back (its reply, its errors) is redacted before
anything of it is run or kept: a system may hold the keys of the environment biarena runs in (a command
inherits it) and quote them.
"""

import contextlib
import importlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import Field, field_validator

from biarena.agents.llm_agent import LLMAgent
from biarena.agents.system import AgentEnv
from biarena.agents.tool_session import ToolLimits, ToolSession
from biarena.benchmarks.archive import Size
from biarena.db import describe_schema
from biarena.errors import UsageError
from biarena.llm.openai_provider import KEY_VARIABLES
from biarena.llm.redact import redact_reply, redact_start, remember_environment_keys
from biarena.records import Answer, Question, SystemSpec
from biarena.records.sanitize import clean_value, describe_changes

DEFAULT_MAX_REPLY_QUERIES = 20
"""Most queries of one reply that run."""

READ_CHUNK = 64 * 1024
"""Bytes read from a system's reply at a time."""
_SAID_READ = 4096
"""Bytes of a failed reply redacted before its first few hundred characters are kept."""


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
        "knowledge": env.benchmark.knowledge_for(question),
        "now": anchor.isoformat(sep=" ") if anchor else None,
    }


def answer_from_reply(reply: Any, session: ToolSession, max_queries: int = DEFAULT_MAX_REPLY_QUERIES) -> Answer:
    """Complete the session's answer from an external system's JSON reply: run its SQL (at most `max_queries`, none
    that already ran through the tools) in the sandbox, and take its answer, or the one submitted through the tools."""
    draft = session.answer

    def failed(error: str, notes: list[str] | None = None) -> Answer:
        draft.status, draft.error = "error", error
        draft.sanitized += notes or []
        return draft

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
    submitted = session.submitted or {}
    final = reply.get("sql") or submitted.get("sql")
    queries = list(queries)
    if final and final not in queries:
        queries.append(final)
    ran = {step.sql for step in draft.steps if step.ok}
    queries = [sql for sql in queries if sql not in ran]
    if len(queries) > max_queries:
        notes.append(f"{len(queries) - max_queries} of {len(queries)} queries not run (over the cap of {max_queries})")
        queries = [*queries[: max_queries - 1], queries[-1]] if max_queries > 1 else queries[-1:]
    for sql in queries:
        session.statement(sql, capped=False)
    text = reply.get("answer")
    if text is None:
        text = submitted.get("answer")
    if text is not None and not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False)
    draft.plan = reply.get("plan")
    draft.final_sql = final or (queries[-1] if queries else LLMAgent.final_sql(draft.steps))
    draft.text = text
    draft.sanitized += notes
    return draft


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


class ExternalOptions(ToolLimits):
    """What every external system takes: its reply's query cap, and the database tools it may be given."""

    max_reply_queries: int = Field(DEFAULT_MAX_REPLY_QUERIES, ge=1)
    """Most queries of one reply that run in the sandbox (the reply's final SQL always does)."""
    tools: bool = False
    """Give the system biarena's database tools for each question (MCP, plain JSON over HTTP, stdio): the payload's
    `tools` says where they are and holds the question's session token."""
    tools_host: str = "127.0.0.1"
    """Address the tool server listens on (loopback unless told otherwise; a session token guards every call)."""
    tools_port: int = Field(0, ge=0, le=65535)
    """Port the tool server listens on (0: a free one)."""


class ServiceOptions(ExternalOptions):
    """What a system biarena waits for (an http endpoint, a command) takes."""

    system_timeout: float = Field(300.0, gt=0)
    """Seconds the system may take for one question, all in all."""
    max_reply_bytes: Size = 16 * 1024 * 1024
    """Largest reply read from the system (bytes, or a size such as 16MiB)."""


class PythonOptions(ExternalOptions):
    """Options of the python system."""

    function: str
    """module:function called with the question as a dict, returning the reply as a dict."""

    @field_validator("function")
    @classmethod
    def _module_function(cls, function: str) -> str:
        module, sep, name = function.partition(":")
        if not sep or not module.strip() or not name.strip():
            raise ValueError("must be module:function")
        return function


class ExternalSystem:
    """What every external system shares: its options, cancelling calls in flight, and an answer from its reply."""

    name = "external"
    target = ""
    target_option = ""
    """The option that says where the system is (shown as its target)."""
    max_reply_queries = DEFAULT_MAX_REPLY_QUERIES
    timeout: float | None = None
    Options: type[ExternalOptions] = ExternalOptions
    options: ExternalOptions

    def __init__(self, options: ExternalOptions | None = None, **values: Any) -> None:
        remember_environment_keys(KEY_VARIABLES)
        self._live: dict[int, Callable[[], None]] = {}
        self._live_lock = threading.Lock()
        self._cancelled = False
        self.options = self.Options.resolve(options, values, f"agent '{self.name}'")
        self.max_reply_queries = self.options.max_reply_queries
        if self.target_option:
            self.target = getattr(self.options, self.target_option)

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

    @property
    def uses_tools(self) -> bool:
        """Whether the system is given the database tools (the run starts a tool server for it)."""
        return self.options.tools

    @property
    def tool_limits(self) -> ToolLimits:
        """Each question's tool caps."""
        return ToolLimits.model_validate({name: getattr(self.options, name) for name in ToolLimits.model_fields})

    def spec_options(self) -> dict[str, Any]:
        """Where the system is (and its query cap, when not the default; its tools and their caps, when given)."""
        options: dict[str, Any] = {"target": self.target}
        if self.max_reply_queries != DEFAULT_MAX_REPLY_QUERIES:
            options["max_reply_queries"] = self.max_reply_queries
        if self.uses_tools:
            options["tools"] = self.tool_limits.model_dump(mode="json")
        return options

    def call(self, payload: dict[str, Any]) -> Any:
        raise NotImplementedError

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Ask the external system (with its tool session open, when it has tools), then replay its SQL safely; what
        it did through the tools is kept even when its reply fails."""
        system = SystemSpec(agent=self.name, options={"target": self.target})
        draft = Answer(question_id=question.id, system=system)
        deadline = time.monotonic() + self.timeout if self.timeout is not None else None
        session = ToolSession(env, question, draft, self.tool_limits, deadline=deadline)
        token = None
        try:
            payload = request_payload(question, env)
            if self.uses_tools:
                if env.tools is None:
                    raise SystemFailed("the system asks for tools but the run has no tool server")
                token, payload["tools"] = env.tools.open(session)
            try:
                reply = redact_reply(self.call(payload))
            finally:
                if token is not None:
                    env.tools.close(token)
                session.close()
            answer = answer_from_reply(reply, session, self.max_reply_queries)
        except Exception as error:  # whatever the system does wrong is recorded on the answer
            message = str(error) if isinstance(error, _OWN_ERRORS) else f"{type(error).__name__}: {error}"
            draft.status, draft.error = "error", redact_reply(message, error=True)[:500]
            return draft
        if answer.status == "ok" and not answer.steps and not answer.text:
            answer.status, answer.error = "error", "the reply has no sql, queries or answer"
        return answer


def parse_reply(reply: bytes | bytearray) -> Any:
    """The JSON value of a reply."""
    try:
        return json.loads(bytes(reply))
    except UnicodeDecodeError as error:
        raise SystemFailed(f"the reply is not UTF-8 text ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        start = said_text(reply)[:80]
        raise SystemFailed(f"the reply is not JSON ({error.msg} at char {error.pos}): {start!r}") from None
    except RecursionError:
        raise SystemFailed("the reply is JSON nested too deeply") from None


def said_text(said: bytes | bytearray, read: int = _SAID_READ) -> str:
    """The start of what a system said when it failed, as text redacted (and counted when it held a key), before a
    part of it is kept; `said` is cut off when it is `read` bytes or more."""
    text = bytes(said[:read]).decode("utf-8", "replace")
    return redact_start(text, whole=len(said) < read)


class ServiceSystem(ExternalSystem):
    """What a system biarena waits for shares: its deadline per question and its reply size limit."""

    Options: type[ServiceOptions] = ServiceOptions
    options: ServiceOptions
    timeout: float
    max_reply_bytes: int

    def __init__(self, options: ServiceOptions | None = None, **values: Any) -> None:
        super().__init__(options, **values)
        self.timeout, self.max_reply_bytes = self.options.system_timeout, self.options.max_reply_bytes

    def call(self, payload: dict[str, Any]) -> Any:
        """The JSON value of the system's reply to one question."""
        return parse_reply(self.exchange(payload))

    def exchange(self, payload: dict[str, Any]) -> bytearray:
        """Send the question to the system and wait for its reply, within the deadline and the size limit."""
        raise NotImplementedError

    def read_reply(
        self, read1: Callable[[int], bytes], into: bytearray, what: str, before_chunk: Callable[[], None] | None = None
    ) -> None:
        """Read a reply `into` a buffer chunk by chunk to its end (calling `before_chunk` before each read);
        ReplyTooLarge, naming the reply as `what`, once it is over max_reply_bytes."""
        while True:
            if before_chunk is not None:
                before_chunk()
            chunk = read1(READ_CHUNK)
            if not chunk:
                return
            into += chunk
            if len(into) > self.max_reply_bytes:
                raise ReplyTooLarge(f"{what} is over max_reply_bytes ({self.max_reply_bytes:,} bytes)")


class PythonSystem(ExternalSystem):
    """Calls `module:function(payload) -> dict`."""

    name = "python"
    target_option = "function"
    Options = PythonOptions
    options: PythonOptions

    def __init__(self, options: PythonOptions | None = None, **values: Any) -> None:
        super().__init__(options, **values)
        function = self.target
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
