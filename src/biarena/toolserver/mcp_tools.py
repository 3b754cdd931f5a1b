"""The database tools as a Model Context Protocol server (the official `mcp` SDK), over any backend."""

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError as McpToolError

from biarena.agents.tool_session import ToolError

Backend = Callable[[Context, str, dict[str, Any]], dict[str, Any]]
"""Runs one tool call for the request in `Context`: (context, operation, arguments) -> reply; raises ToolError."""

INSTRUCTIONS = (
    "Tools over one business database, for answering one question: list_tables, then describe_table for the tables "
    "that matter, then run_query (one read-only SELECT at a time; rows come back capped), then submit_answer with "
    "your answer and the query it stands on. Every statement is checked and may be refused; errors say why."
)


def build_mcp(backend: Backend) -> MCPServer:
    """An MCP server with the four database tools, each answered by `backend`."""
    server = MCPServer("biarena-database", instructions=INSTRUCTIONS, log_level="WARNING")

    def ask(ctx: Context, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            return backend(ctx, operation, {k: v for k, v in arguments.items() if v is not None})
        except ToolError as error:
            raise McpToolError(str(error)) from None

    @server.tool()
    def list_tables(ctx: Context) -> dict[str, Any]:
        """List the database's tables and views, its SQL dialect, and the date the question is asked on ('now')."""
        return ask(ctx, "list_tables", {})

    @server.tool()
    def describe_table(table: str, ctx: Context) -> dict[str, Any]:
        """Describe one table: its CREATE statement (columns, types, primary key), foreign keys and 3 sample rows."""
        return ask(ctx, "describe_table", {"table": table})

    @server.tool()
    def run_query(sql: str, ctx: Context, purpose: str | None = None) -> dict[str, Any]:
        """Run one read-only SQL statement in the database's dialect and return its columns and rows (capped).

        `purpose` says what the statement is meant to find (kept with it in the answer's record)."""
        return ask(ctx, "run_query", {"sql": sql, "purpose": purpose})

    @server.tool()
    def submit_answer(answer: str, ctx: Context, sql: str | None = None) -> dict[str, Any]:
        """Submit the final answer to the question, in prose, and the SQL query it stands on (when there is one)."""
        return ask(ctx, "submit_answer", {"answer": answer, "sql": sql})

    return server
