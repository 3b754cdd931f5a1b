"""The database tool server: one question's database, sandboxed and traced, for a system that queries it itself.

biarena starts it for a run whose system asks for tools (`-O tools=true`) and tells the system, with each question,
where it is and the session token that reaches only that question's database until its deadline. It speaks the
Model Context Protocol (streamable HTTP at `/mcp`, and stdio through `biarena tools stdio`) and plain JSON
(`POST /tools/OPERATION`). Every call goes to the question's `biarena.agents.tool_session.ToolSession`.
"""

from biarena.toolserver.server import ToolServer, serving_tools
from biarena.toolserver.sessions import SessionBook

__all__ = ["SessionBook", "ToolServer", "serving_tools"]
