"""Tool server overhead: one statement through the database tools, against the same statement called directly.

Four paths run the very same statements on the same sandboxed databases (bis-synth's, by default):
  (a) direct: `run_step`, the sandbox call every agent's statement goes through;
  (b) in-process: `ToolSession.call("run_query", ...)`, the tool layer without a server: the caps, the call
      recorded, the reply's rows capped and redacted (the built-in agents call the same session's `statement`);
  (c) plain JSON: `POST /tools/run_query` to the run's tool server on loopback, one keep-alive connection;
  (d) MCP: `call_tool("run_query", ...)` with the official `mcp` client over streamable HTTP, one session reused.
The statements are every distinct gold query of the benchmark, then a trivial `SELECT 42` (the fixed cost: nearly
nothing for the database to do). Each round times every statement once on each path, back to back in a random
order (so no path always follows the same one); a statement's overhead on a path is its time there minus its time
on (a) in the same round. Printed per path: the median time per statement, the median of those overheads in ms,
and the median of the per-statement ratios to (a).

Run: python perf/tool_server_overhead.py [--benchmark NAME_OR_DIR] [--rounds N]
"""

import argparse
import contextlib
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from biarena.agents import AgentEnv, run_step
from biarena.agents.tool_session import ToolLimits, ToolSession
from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.records import Answer, Question
from biarena.toolserver import serving_tools

PATHS = ("direct", "in-process", "plain JSON", "MCP")
UNCAPPED = ToolLimits(max_statements=10**9, max_database_seconds=1e9)
"""Caps no measurement reaches (the rows returned keep their usual cap)."""

Call = Callable[[Question, str], Awaitable[int]]
"""Runs one statement for a question on one path; the number of rows it found."""


def statements(benchmark: Any) -> list[tuple[Question, str]]:
    """Every distinct gold query, with the first question that asks it."""
    seen: dict[tuple[str, str], Question] = {}
    for question in benchmark.questions:
        for sql in question.gold_sql[:1]:
            seen.setdefault((question.database, sql), question)
    return [(question, sql) for (_, sql), question in seen.items()]


def report(title: str, timings: dict[str, list[list[float]]]) -> None:
    """Print each path's median per statement and its overhead against the direct path, in ms and as a ratio."""
    count = len(timings["direct"][0])
    print(f"\n{title}: {count} statements x {len(timings['direct'])} rounds")
    print(f"{'path':12s} {'median ms':>10s} {'overhead ms':>12s} {'ratio':>7s}")
    for path in PATHS:
        times = [t for run in timings[path] for t in run]
        pairs = [
            (t, d)
            for run, base in zip(timings[path], timings["direct"], strict=True)
            for t, d in zip(run, base, strict=True)
        ]
        overhead = statistics.median(t - d for t, d in pairs) * 1000
        ratio = statistics.median(t / d for t, d in pairs)
        said = "" if path == "direct" else f" {overhead:+12.3f} {ratio:6.2f}x"
        print(f"{path:12s} {statistics.median(times) * 1000:10.3f}{said}")


async def measure(
    items: list[tuple[Question, str]], calls: dict[str, Call], rounds: int
) -> dict[str, list[list[float]]]:
    """Time every statement on every path, `rounds` times after a warm-up round; check the paths found alike."""
    timings: dict[str, list[list[float]]] = {path: [] for path in PATHS}
    order = random.Random(0)
    for round_ in range(rounds + 1):
        took: dict[str, list[float]] = {path: [] for path in PATHS}
        for question, sql in items:
            found = {}
            for path in order.sample(PATHS, len(PATHS)):
                started = time.perf_counter()
                found[path] = await calls[path](question, sql)
                took[path].append(time.perf_counter() - started)
            assert len(set(found.values())) == 1, (sql, found)
        if round_:
            for path in PATHS:
                timings[path].append(took[path])
    return timings


async def main_async(benchmark_name: str, rounds: int) -> None:
    """Open the databases, the sessions and the tool server; time the paths on the gold and on SELECT 42."""
    benchmark = resolve_benchmark(benchmark_name)
    pool = DatabasePool(benchmark)
    pool.open_all()
    gold = statements(benchmark)
    with serving_tools() as server:
        env = AgentEnv(benchmark, pool, tools=server)
        # one session (and token) per database, opened for the first question on it: a session reaches one database
        sessions: dict[str, ToolSession] = {}
        tools: dict[str, dict[str, Any]] = {}
        for question, _ in gold:
            if question.database not in sessions:
                answer = Answer(question_id=question.id, system={"agent": "perf"})
                sessions[question.database] = ToolSession(env, question, answer, UNCAPPED, record_calls=False)
                _, tools[question.database] = server.open(sessions[question.database])
        plain = httpx2.Client(timeout=60)
        opened = {}
        async with contextlib.AsyncExitStack() as stack:
            for database, told in tools.items():
                http = await stack.enter_async_context(httpx2.AsyncClient(headers=told["headers"], timeout=60))
                opened[database] = await stack.enter_async_context(
                    Client(streamable_http_client(told["mcp_url"], http_client=http))
                )

            async def direct(question: Question, sql: str) -> int:
                step, _ = run_step(env, question, sql)
                return step.row_count or 0

            async def in_process(question: Question, sql: str) -> int:
                return sessions[question.database].call("run_query", {"sql": sql})["row_count"]

            async def plain_json(question: Question, sql: str) -> int:
                told = tools[question.database]
                reply = plain.post(f"{told['http_url']}/run_query", json={"sql": sql}, headers=told["headers"])
                return reply.json()["result"]["row_count"]

            async def mcp(question: Question, sql: str) -> int:
                result = await opened[question.database].call_tool("run_query", {"sql": sql})
                assert not result.is_error, result.content
                return result.structured_content["row_count"]

            calls: dict[str, Call] = {"direct": direct, "in-process": in_process, "plain JSON": plain_json, "MCP": mcp}
            print(f"{benchmark.name}: tool server at {server.base_url}; {len(gold)} distinct gold statements")
            report("gold statements", await measure(gold, calls, rounds))
            trivial = [(gold[0][0], "SELECT 42")] * 200
            report("SELECT 42 (the fixed cost)", await measure(trivial, calls, rounds))
        plain.close()
    pool.close()


def main() -> None:
    """Parse the arguments and time the four paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="bis-synth", help="benchmark directory or built-in name")
    parser.add_argument("--rounds", type=int, default=5, help="rounds over the statements (after one warm-up)")
    args = parser.parse_args()
    anyio.run(main_async, args.benchmark, args.rounds)


if __name__ == "__main__":
    main()
