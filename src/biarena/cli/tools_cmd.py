"""`biarena tools`: the database tools a run gives a system under test, from the system's side."""

import os

import typer

from biarena.toolserver.stdio_bridge import serve_stdio

app = typer.Typer(
    help="The database tools a run gives a system that queries the database itself (-O tools=true). `tools stdio` "
    "serves them over MCP on stdin/stdout, for an agent whose MCP client starts its server as a command.",
    no_args_is_help=True,
)


@app.command("stdio")
def stdio(
    url: str = typer.Option(
        None, "--url", help="The run's tool endpoint (default: $BIARENA_TOOLS_URL, set in the payload's tools.stdio)."
    ),
    token: str = typer.Option(
        None, "--token", help="The question's session token (default: $BIARENA_TOOLS_TOKEN).", show_default=False
    ),
) -> None:
    """Serve one question's database tools over MCP on stdin/stdout, forwarding every call to the run's tool
    server (where it is sandboxed, capped and recorded)."""
    serve_stdio(url or os.environ.get("BIARENA_TOOLS_URL"), token or os.environ.get("BIARENA_TOOLS_TOKEN"))
