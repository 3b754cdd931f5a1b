"""`biarena model serve`: a model as an OpenAI-compatible endpoint on this machine."""

from pathlib import Path

import typer

from biarena.cli.console import note, out, show_message
from biarena.cli.model_flags import MODEL_PAIRS, MODELS_FILE
from biarena.cli.options import HOST
from biarena.cli.settings_from import settings_from
from biarena.llm.model_server import ServerReady, ServeSettings, serve_model
from biarena.llm.openai_wire import DEFAULT_MAX_TOKENS

app = typer.Typer(help="Serve a model as an OpenAI-compatible endpoint on this machine.", no_args_is_help=True)


@app.command("serve")
def serve(
    model: str = typer.Option(
        "local",
        "--model",
        help="local (default: the embedded model), local:/path.gguf, mock or mock:NAME (with -M script=FILE.yaml), "
        "openai:MODEL@URL, or a model named in --models.",
    ),
    model_option: list[str] | None = MODEL_PAIRS,
    models_file: Path | None = MODELS_FILE,
    host: str = HOST,
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port to listen on (0: any free one)."),
    api_key_env: str | None = typer.Option(
        None,
        "--api-key-env",
        metavar="NAME",
        help="The environment variable holding the key every request must carry (Authorization: Bearer KEY).",
    ),
    max_tokens: int = typer.Option(
        DEFAULT_MAX_TOKENS, "--max-tokens", min=1, help="A reply's token budget when the request names none."
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Ask the model again for a request already answered (-M cache=false)."
    ),
) -> None:
    """Serve a model as an OpenAI-compatible endpoint: chat completions, streamed or not, with tool calls.

    An agent framework's tool loop (the OpenAI Agents SDK, LangChain, ...) then runs offline against the embedded
    model: point its OpenAI client at the URL printed on stdout once the server listens (`http://HOST:PORT/v1`).
    Replies go through biarena's model path: the response cache (the same request is answered from it), the local
    model's one generation at a time per machine (requests wait their turn), and the redaction of keys. The mock
    model replies from a script (-M script=FILE.yaml) that each conversation follows on its own. Ctrl-C stops.
    """
    serve_model(settings_from(ServeSettings, locals(), model_options=list(model_option or [])), _show)


def _show(event: object) -> None:
    """The server's ready line (its URL also on stdout, for a script to read) and its messages."""
    if isinstance(event, ServerReady):
        note(f"serving {event.model} (OpenAI chat completions) at {event.url}; Ctrl-C stops")
        out.print(event.url, markup=False)
    else:
        show_message(event)
