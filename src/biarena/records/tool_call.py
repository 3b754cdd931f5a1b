"""The ToolCall record: one operation a system asked of biarena's database tools while answering."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ToolOperation = Literal["list_tables", "describe_table", "run_query", "submit_answer"]
"""What a system may ask of the database tools."""


class ToolCall(BaseModel):
    """One tool call: the operation, what it was given, how long it took, what came back or why it was refused."""

    model_config = ConfigDict(extra="forbid")

    operation: ToolOperation
    """Which tool was called."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """What the system passed (the table, the statement, the submitted answer), as kept after redaction."""
    transport: Literal["mcp", "http", "in-process"] = "in-process"
    """How the call arrived: the Model Context Protocol, the plain JSON endpoint, or a direct call."""
    step: int | None = None
    """For `run_query`: the index of the statement's step in the answer's `steps`."""
    rows: int | None = None
    """Rows returned to the system (after the row and size caps)."""
    error: str | None = None
    """Why the call failed or was refused, as the system was told."""
    elapsed: float = 0.0
    """Seconds the call took inside biarena (excluded when two runs' traces are compared)."""
