"""External systems for the tool-server tests: python systems (called in the run's process) that explore their
question's database through the tools, over MCP or plain JSON, and one command system that starts `biarena tools
stdio` as its MCP server."""

import json
import sys
import urllib.error
import urllib.request
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

TOKENS: list[str] = []
"""Every token a system was given, in order (a later question tries an earlier one's)."""


def post(tools: dict[str, Any], operation: str, arguments: dict[str, Any], token: str | None = None) -> tuple[int, Any]:
    """One plain JSON call: (HTTP status, body)."""
    headers = {"Content-Type": "application/json"}
    headers["Authorization"] = f"Bearer {token}" if token is not None else tools["headers"]["Authorization"]
    request = urllib.request.Request(
        f"{tools['http_url']}/{operation}", data=json.dumps(arguments).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


SCENARIO = [
    ("list_tables", {}),
    ("describe_table", {"table": "sales"}),
    ("run_query", {"sql": "SELECT COUNT(*) AS n FROM sales", "purpose": "how many sales"}),
    ("run_query", {"sql": "DELETE FROM sales"}),
    ("run_query", {"sql": "SELECT sale_id, amount FROM sales ORDER BY sale_id"}),
    ("submit_answer", {"answer": "There are many sales.", "sql": "SELECT COUNT(*) AS n FROM sales"}),
]
"""List, describe, three statements (one the guard refuses, one over a small row cap), answer."""


def http_scenario(payload: dict[str, Any]) -> dict[str, Any]:
    """The scenario over plain JSON; the reply reports each call's status."""
    said = [post(payload["tools"], operation, arguments) for operation, arguments in SCENARIO]
    return {"plan": json.dumps([status for status, _ in said])}


async def _mcp(tools: dict[str, Any], calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    http = httpx2.AsyncClient(headers=tools["headers"])
    async with http, Client(streamable_http_client(tools["mcp_url"], http_client=http)) as client:
        listed = sorted(tool.name for tool in (await client.list_tools()).tools)
        said: list[dict[str, Any]] = [{"tools": listed}]
        for operation, arguments in calls:
            result = await client.call_tool(operation, arguments)
            text = result.content[0].text if result.content else ""
            said.append({"error": result.is_error, "text": text, "data": result.structured_content})
        return said


def mcp_scenario(payload: dict[str, Any]) -> dict[str, Any]:
    """The scenario over MCP (the official client); the reply reports what came back."""
    said = anyio.run(_mcp, payload["tools"], SCENARIO)
    return {"plan": json.dumps(said)}


def trespasser(payload: dict[str, Any]) -> dict[str, Any]:
    """Tries the previous question's token, and another database with its own; then answers."""
    tools = payload["tools"]
    tried = []
    if TOKENS:
        tried.append(post(tools, "list_tables", {}, token=TOKENS[-1]))
    tried.append(post(tools, "list_tables", {"database": "elsewhere"}))
    tried.append(post(tools, "list_tables", {}, token=tools["token"][:-2] + "xx"))
    tried.append(post(tools, "list_tables", {}, token=""))
    TOKENS.append(tools["token"])
    return {"answer": json.dumps(tried), "sql": "SELECT 1"}


def busy(payload: dict[str, Any]) -> dict[str, Any]:
    """Three statements through plain JSON whose results depend on the question; answers with what it read."""
    tools = payload["tools"]
    number = int(payload["question_id"][1:])
    rows = []
    for offset in range(3):
        status, body = post(
            tools, "run_query", {"sql": f"SELECT COUNT(*) FROM sales WHERE qty > {(number + offset) % 7}"}
        )
        rows.append(body["result"]["rows"][0][0] if status == 200 else body)
    post(tools, "submit_answer", {"answer": f"counts {rows}"})
    return {}


async def _stdio(tools: dict[str, Any]) -> list[Any]:
    stdio = tools["stdio"]
    params = StdioServerParameters(command=stdio["command"], args=stdio["args"], env=stdio["env"])
    async with Client(params) as client:
        first = await client.call_tool("list_tables", {})
        counted = await client.call_tool("run_query", {"sql": "SELECT COUNT(*) FROM city"})
        await client.call_tool("submit_answer", {"answer": f"{counted.structured_content['rows'][0][0]} cities"})
        return [first.structured_content["tables"], counted.structured_content["rows"]]


def main() -> None:
    """A command system: the payload on stdin, the tools through `biarena tools stdio`, the reply on stdout."""
    payload = json.load(sys.stdin)
    said = anyio.run(_stdio, payload["tools"])
    json.dump({"plan": json.dumps(said)}, sys.stdout)


if __name__ == "__main__":
    main()
