"""Adapters for systems biarena does not run itself: an HTTP endpoint, a command, a Python callable.

Each gets the question as JSON: {"question_id", "question", "language", "database", "dialect",
"schema", "knowledge", "now"} and returns JSON: {"sql": "...", "answer": "...", "queries": [...],
"plan": "..."} (every field optional). Queries run through biarena's sandbox, never the system's.
"""

import importlib
import json
import shlex
import subprocess
from collections.abc import Callable
from typing import Any

from biarena.agents.system import AgentEnv, run_step
from biarena.db import describe_schema
from biarena.errors import UsageError
from biarena.records import Answer, Question, SystemSpec


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


def answer_from_reply(reply: Any, question: Question, env: AgentEnv, system: SystemSpec) -> Answer:
    """Turn an external system's JSON reply into an Answer, running its SQL in the sandbox."""
    if not isinstance(reply, dict):
        return Answer(
            question_id=question.id,
            system=system,
            status="error",
            error=f"the system replied {type(reply).__name__}, not a JSON object",
        )
    queries = [q for q in reply.get("queries") or [] if isinstance(q, str)]
    final = reply.get("sql") if isinstance(reply.get("sql"), str) else None
    if final and final not in queries:
        queries.append(final)
    steps = [run_step(env, question, sql)[0] for sql in queries]
    text = reply.get("answer")
    return Answer(
        question_id=question.id,
        system=system,
        plan=reply.get("plan") if isinstance(reply.get("plan"), str) else None,
        steps=steps,
        final_sql=final or (queries[-1] if queries else None),
        text=text if isinstance(text, str) else None,
    )


class _External:
    name = "external"

    def spec_options(self) -> dict[str, Any]:
        """Where the system is."""
        return {"target": self.target}

    def call(self, payload: dict[str, Any]) -> Any:
        raise NotImplementedError

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Ask the external system, then replay its SQL safely."""
        system = SystemSpec(agent=self.name, options={"target": self.target})
        try:
            reply = self.call(request_payload(question, env))
        except Exception as error:  # whatever the system does wrong is recorded on the answer
            return Answer(
                question_id=question.id,
                system=system,
                status="error",
                error=f"{type(error).__name__}: {str(error)[:500]}",
            )
        answer = answer_from_reply(reply, question, env, system)
        if answer.status == "ok" and not answer.steps and not answer.text:
            answer.status, answer.error = "error", "the reply has no sql, queries or answer"
        return answer


class HttpSystem(_External):
    """POSTs the question as JSON to a URL and reads a JSON answer."""

    name = "http"

    def __init__(self, url: str | None = None, timeout: float = 300.0) -> None:
        if not url:
            raise UsageError("the http system needs --url URL")
        self.target = url
        self.timeout = timeout

    def call(self, payload: dict[str, Any]) -> Any:
        """One POST."""
        import urllib.request

        request = urllib.request.Request(
            self.target,
            data=json.dumps(payload).encode("utf-8"),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.loads(response.read().decode("utf-8"))


class CommandSystem(_External):
    """Runs a user's command with the question as JSON on stdin; reads JSON from stdout."""

    name = "command"

    def __init__(self, command: str | None = None, timeout: float = 300.0) -> None:
        if not command:
            raise UsageError("the command system needs --command 'CMD ARGS'")
        self.target = command
        self.argv = shlex.split(command)
        self.timeout = timeout

    def call(self, payload: dict[str, Any]) -> Any:
        """One process per question."""
        done = subprocess.run(
            self.argv, input=json.dumps(payload), capture_output=True, text=True, timeout=self.timeout, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"exit code {done.returncode}: {done.stderr.strip()[:300]}")
        return json.loads(done.stdout)


class PythonSystem(_External):
    """Calls `module:function(payload) -> dict`."""

    name = "python"

    def __init__(self, function: str | None = None) -> None:
        if not function or ":" not in function:
            raise UsageError("the python system needs --function module:function")
        self.target = function
        module, _, name = function.partition(":")
        try:
            self.function: Callable[[dict], Any] = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as error:
            raise UsageError(f"cannot load {function}: {error}") from None

    def call(self, payload: dict[str, Any]) -> Any:
        """One call."""
        return self.function(payload)
