"""An analyst agent built with the OpenAI Agents SDK, evaluated by biarena as a command system.

biarena runs this script once per question (`--agent command -O command="python examples/agents-sdk/agent.py"
-O tools=true`): the question comes as JSON on stdin, with a `tools` block saying where biarena serves the
question's database tools over the Model Context Protocol and holding the session token that reaches them. The
agent explores the database with those tools (list_tables, describe_table, run_query), submits its answer with
submit_answer, and prints its reply as JSON on stdout: `{}` once it has submitted (biarena holds the answer), else
`{"answer": ...}` with its last words.

The model is any OpenAI-compatible chat completions endpoint, read from the environment (a command system inherits
biarena's): OPENAI_BASE_URL (default http://127.0.0.1:8000/v1, where `biarena model serve` listens), OPENAI_API_KEY
(default: none; the served model needs none unless started with --api-key-env), OPENAI_MODEL (default `local`; the
served model answers to any name) and AGENT_MAX_TURNS (model calls per question, default 12). Tracing to outside
services is off.
"""

import asyncio
import contextlib
import json
import os
import sys
from typing import Any

from agents import (
    Agent,
    FunctionToolResult,
    MaxTurnsExceeded,
    ModelSettings,
    OpenAIChatCompletionsModel,
    RunContextWrapper,
    Runner,
    ToolsToFinalOutputResult,
    set_tracing_disabled,
)
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI

SERVED_MODEL_URL = "http://127.0.0.1:8000/v1"
"""Where `biarena model serve` listens by default."""
TOOL_CALL_SECONDS = 120.0
"""How long one tool call may take (biarena's sandbox stops a statement sooner: 30 s by default)."""

INSTRUCTIONS = """You are a data analyst. Answer the user's question about a business database, using only what the
database tools show you:
1. start from the schema you are given; list_tables and describe_table show more (keys, sample values);
2. run_query with one read-only SELECT statement at a time, in the database's SQL dialect, and read its rows;
   when a statement fails, read the error and write a different statement: the same one fails again;
3. submit_answer with your answer in a sentence or two, with the figures it rests on, and the SQL of the query
   that produced them.
Never guess a table or column name: look it up. Answer in the language of the question."""


def question_prompt(payload: dict[str, Any]) -> str:
    """The user message: the question, and what the agent knows before it looks (the dialect, today, the schema)."""
    lines = [
        f"Question: {payload['question']}",
        f"Database: {payload['database']} ({payload['dialect']} dialect)",
    ]
    if payload.get("now"):
        lines.append(f"Today is {payload['now']}: read 'now', 'this year', 'last week' from that date.")
    if payload.get("knowledge"):
        lines.append(f"What the business knows:\n{payload['knowledge']}")
    # A small model given only the table names guesses columns; the schema (with two sample rows a table) spares
    # it that, and the tools are there for the rest.
    lines.append(f"The schema:\n{payload['schema']}")
    return "\n".join(lines)


def chat_model() -> OpenAIChatCompletionsModel:
    """The model, from the environment: any server that speaks OpenAI's chat completions API."""
    client = AsyncOpenAI(
        base_url=os.environ.get("OPENAI_BASE_URL") or SERVED_MODEL_URL,
        api_key=os.environ.get("OPENAI_API_KEY") or "unused",
    )
    return OpenAIChatCompletionsModel(model=os.environ.get("OPENAI_MODEL") or "local", openai_client=client)


def submitted(result: FunctionToolResult) -> bool:
    """Whether this tool result is biarena accepting the answer (`{"submitted": true}`)."""
    if result.tool.name != "submit_answer":
        return False
    output = result.output
    text = output.get("text", "") if isinstance(output, dict) else getattr(output, "text", output)
    try:
        return json.loads(str(text)).get("submitted") is True
    except (ValueError, AttributeError):
        return False


async def answer(payload: dict[str, Any]) -> dict[str, Any]:
    """Answer one question with the agent; the reply biarena reads."""
    tools = payload["tools"]
    done: list[bool] = []

    def stop_once_submitted(_: RunContextWrapper[Any], results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
        # An accepted answer ends the run: asking the model again would only cost a turn.
        if any(submitted(result) for result in results):
            done.append(True)
            return ToolsToFinalOutputResult(is_final_output=True, final_output="")
        return ToolsToFinalOutputResult(is_final_output=False)

    database = MCPServerStreamableHttp(
        params={
            "url": tools["mcp_url"],
            "headers": tools["headers"],
            "timeout": TOOL_CALL_SECONDS,
            "sse_read_timeout": TOOL_CALL_SECONDS,
        },
        name="biarena-database",
        cache_tools_list=True,
        client_session_timeout_seconds=TOOL_CALL_SECONDS,
    )
    async with database:
        agent = Agent(
            name="analyst",
            instructions=INSTRUCTIONS,
            model=chat_model(),
            mcp_servers=[database],
            # Every reply is a tool call and submit_answer is the way out: a small model held to this (the served
            # model holds it with a grammar) cannot write its calls as prose or stop before it has looked.
            model_settings=ModelSettings(tool_choice="required"),
            reset_tool_choice=False,
            tool_use_behavior=stop_once_submitted,
        )
        try:
            result = await Runner.run(
                agent, question_prompt(payload), max_turns=int(os.environ.get("AGENT_MAX_TURNS") or 12)
            )
        except MaxTurnsExceeded as error:
            # what it did through the tools is already recorded by biarena, which scores the queries it ran
            print(f"agent: {error}", file=sys.stderr)
            return {}
    return {} if done else {"answer": str(result.final_output)}


def main() -> None:
    """Read the question from stdin, answer it, and print the reply on stdout."""
    payload = json.load(sys.stdin)
    if not payload.get("tools"):
        sys.exit("agent: this agent queries the database through biarena's tools: run it with -O tools=true")
    set_tracing_disabled(True)
    # stdout carries the reply alone: whatever a library prints goes to stderr
    with contextlib.redirect_stdout(sys.stderr):
        reply = asyncio.run(answer(payload))
    json.dump(reply, sys.stdout)


if __name__ == "__main__":
    main()
