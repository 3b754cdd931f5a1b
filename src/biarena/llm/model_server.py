"""serve_model: a model as an OpenAI-compatible endpoint on this machine (`biarena model serve`), so an agent
framework's tool loop runs offline against the embedded model, or a scripted mock in tests."""

import ipaddress
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.llm.model import Model
from biarena.llm.openai_wire import DEFAULT_MAX_TOKENS
from biarena.llm.redact import remember_secret
from biarena.settings import Settings

DEFAULT_CONNECTIONS = 8
"""Requests answered at once when the model's options set no `connections` (the local model still writes one reply
at a time: the others wait their turn)."""


class ServeSettings(Settings):
    """What `biarena model serve` serves, and where."""

    model: str = "local"
    """A model string (`local`, `local:/path.gguf`, `mock`, `mock:NAME`, `openai:MODEL@URL`) or a model named in
    `models_file`."""
    model_options: dict[str, Any] | list[str] = Field(default_factory=dict)
    """The model's options, as values or as `NAME=VALUE` texts (`-M`): e.g. `script=FILE.yaml` for the mock."""
    models_file: Path | None = None
    """Named models (`--models`); default: models.yaml here, if any."""
    host: str = Field("127.0.0.1", json_schema_extra={"flag": "--host"})
    """The address to listen on; loopback unless told otherwise."""
    port: int = Field(8000, ge=0, le=65535, json_schema_extra={"flag": "--port"})
    """The port to listen on (0: one the system picks, told in the ready line)."""
    api_key_env: str | None = Field(None, json_schema_extra={"flag": "--api-key-env"})
    """The environment variable holding the key a request must carry (`Authorization: Bearer KEY`); none: no key."""
    no_cache: bool = False
    """Ask the model again for a request already answered (the same as model option cache=false)."""
    max_tokens: int = Field(DEFAULT_MAX_TOKENS, ge=1, json_schema_extra={"flag": "--max-tokens"})
    """A reply's token budget when the request names none."""


@dataclass(frozen=True)
class ServerReady:
    """The server listens: its base URL (`.../v1`, what an OpenAI client takes) and the model it serves."""

    url: str
    model: str


class ModelServer:
    """A model's chat app on a listening socket, served by uvicorn in the calling thread (`run`) or in a thread of its
    own (`start`, `stop`)."""

    def __init__(
        self,
        model: Model,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        try:
            import uvicorn

            from biarena.llm.chat_app import chat_app
        except ImportError as error:
            raise UsageError(
                f"serving a model needs the tools extra ({error.name} is missing): pip install 'biarena[tools]'"
            ) from None
        self.model = model
        self.socket = _listen(host, port)
        bound_host, bound_port = self.socket.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.url = f"http://{shown}:{bound_port}/v1"
        """The base URL an OpenAI client takes."""
        config = uvicorn.Config(
            chat_app(model, api_key=api_key, max_tokens=max_tokens),
            log_level="warning",
            access_log=False,
            proxy_headers=False,
            timeout_graceful_shutdown=5,
        )
        self._ready = threading.Event()
        self._server = _uvicorn_server(config, self._ready)
        self._thread: threading.Thread | None = None

    def run(self, on_ready: EventHandler = ignore) -> None:
        """Serve until interrupted (Ctrl-C, SIGTERM); `on_ready` is told `ServerReady` once the server listens."""
        self._server.on_ready = lambda: on_ready(ServerReady(self.url, self.model.spec))
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self.socket.close()

    def start(self) -> str:
        """Serve in a thread of its own; the base URL once the server listens."""
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self._thread.start()
        while not self._ready.wait(0.05):
            if not self._thread.is_alive():
                raise RuntimeError("the model server stopped before it listened")
        return self.url

    def stop(self) -> None:
        """Stop a server started with `start` (requests under way are given a few seconds to finish)."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join()
        self.socket.close()

    def __enter__(self) -> "ModelServer":
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def _uvicorn_server(config: Any, ready: threading.Event) -> Any:
    """uvicorn's server (imported only here, with the tools extra), setting `ready` and calling its `on_ready` once
    it listens."""
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, telling when it listens."""

        def __init__(self, config: Any, ready: threading.Event) -> None:
            super().__init__(config)
            self.ready = ready
            self.on_ready: Any = None

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                self.ready.set()
                if self.on_ready is not None:
                    self.on_ready()

    return Server(config, ready)


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host:port` (port 0: any free one); one line when the address cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as error:
        raise UsageError(f"--host {host}: not an address of this machine ({error.strerror})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.set_inheritable(True)
    return sock


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (`localhost`, 127.0.0.0/8, ::1): where a server needs no key."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def served_model(settings: ServeSettings) -> Model:
    """The model the settings name, with its options, cache and concurrency."""
    from biarena.llm import get_model
    from biarena.llm.model_options import resolve_model
    from biarena.options import value_pairs

    pairs = ["cache=false"] if settings.no_cache else []
    given = settings.model_options
    pairs += given if isinstance(given, list) else value_pairs(given)
    options = resolve_model(settings.model, pairs, settings.models_file)
    return get_model(options.spec(), options=options, concurrency=options.connections or DEFAULT_CONNECTIONS)


def serve_model(settings: ServeSettings, on_event: EventHandler = ignore) -> None:
    """Serve the settings' model until interrupted: `ServerReady` is reported once it listens. A missing key
    variable, a busy port or a bad model is a UsageError before anything listens."""
    api_key = None
    if settings.api_key_env is not None:
        api_key = os.environ.get(settings.api_key_env)
        if not api_key:
            raise UsageError(f"--api-key-env {settings.api_key_env}: the environment variable is not set")
        remember_secret(api_key)  # a reply quoting it back is masked
    model = served_model(settings)
    server = ModelServer(
        model, host=settings.host, port=settings.port, api_key=api_key, max_tokens=settings.max_tokens
    )
    if not is_loopback(settings.host) and api_key is None:
        on_event(
            Message(
                f"note: listening on {settings.host} with no key: whoever reaches this port can use the model "
                "(--api-key-env NAME asks for one)"
            )
        )
    server.run(on_event)
