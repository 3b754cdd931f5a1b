"""LocalProvider: a GGUF model in-process with llama-cpp-python (the embedded default, or any file)."""

import atexit
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from biarena.errors import NotFoundError, UsageError

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; generations are not serialized across processes
    fcntl = None  # type: ignore[assignment]
from biarena.llm.model_options import LocalModel, ModelOptions
from biarena.llm.notices import Notice, notify
from biarena.llm.prompt_lookup import DEFAULT_DRAFT
from biarena.llm.tool_calls import forced_call, forced_call_schema, llama_messages, read_tool_calls, tool_names
from biarena.llm.types import ChatRequest, Completion, InvalidRequestError, ModelError, ToolCall
from biarena.llm.writing_notices import writing_notices

_LOADED: dict[str, Any] = {}
_LOAD_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    # Free llama.cpp models while the interpreter is whole; at teardown its bindings are already gone.
    for llama in _LOADED.values():
        close = getattr(llama, "close", None)
        if close is not None:
            close()
    _LOADED.clear()


def load_llama(path: Path, context: int = 8192, threads: int | None = None) -> Any:
    """Load (once per process) a llama.cpp model from a GGUF file.

    No prompt-state cache is set: llama.cpp already reuses the evaluated prefix that a prompt shares with the
    previous one (the system prompt with the schema), and a saved state carries a copy of the logits buffer
    (hundreds of MB each), which made memory grow to many GB over a run. The one loaded copy serves every draft
    length: it is a setting of each reply (`SpeculativeLlama.draft`).
    """
    try:
        from biarena.llm.speculative_llama import SpeculativeLlama
    except ImportError:
        raise UsageError("the local model needs: pip install 'biarena[local]'") from None

    key = f"{path}:{context}"
    with _LOAD_LOCK:
        if key not in _LOADED:
            llama = SpeculativeLlama(
                model_path=str(path),
                n_ctx=context,
                n_threads=threads or os.cpu_count() or 2,
                n_threads_batch=threads or os.cpu_count() or 2,
                verbose=False,
                seed=0,
            )
            _LOADED[key] = llama
        return _LOADED[key]


@contextmanager
def machine_turn(path: Path) -> Iterator[None]:
    """Hold the machine-wide turn to generate with llama.cpp (an advisory lock file beside the model).

    llama.cpp uses every core and its threads spin while they wait for each other: two processes generating at
    once on the same cores each run many times slower than one after the other.
    """
    lock_path = path.parent / ".generate.lock"
    if fcntl is None:
        yield
        return
    try:
        handle = open(lock_path, "a+b")  # noqa: SIM115 - held for the whole generation
    except OSError:
        yield  # a read-only model directory: no lock, generate anyway
        return
    try:
        _take_turn(handle, lock_path)
        yield
    finally:
        handle.close()


WAIT_NOTICE_SECONDS = 3.0
"""How long a generation waits for another process's turn before the user is told why nothing moves."""


def _take_turn(handle: Any, lock_path: Path) -> None:
    """Lock `handle`; a wait longer than `WAIT_NOTICE_SECONDS` is told, naming the process that holds the turn."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        timer = threading.Timer(WAIT_NOTICE_SECONDS, _tell_waiting, (lock_path,))
        timer.daemon = True
        timer.start()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        finally:
            timer.cancel()
    try:  # name this process as the holder, for anyone who has to wait
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()).encode())
        handle.flush()
    except OSError:
        pass


def _tell_waiting(lock_path: Path) -> None:
    try:
        holder = lock_path.read_text().strip()
    except OSError:
        holder = ""
    who = f"process {holder}" if holder.isdigit() else "another process"
    notify(
        Notice(
            "note",
            f"waiting for {who} to finish generating with the local model (one generation at a time per "
            f"machine; lock {lock_path})",
        )
    )


class LocalProvider:
    """Chat with a local GGUF model; structured output is constrained by a grammar built from the schema.

    Tools are shown to the model by the GGUF's own chat template (Qwen2.5's lists them in the system prompt and asks
    for `<tool_call>` blocks, which are read back into tool calls); a call the request requires is held to the
    tools' schemas by a grammar."""

    name = "local"
    Options = LocalModel
    takes_tools = True

    @classmethod
    def from_options(cls, options: ModelOptions, cache_dir: Path, **_: Any) -> "LocalProvider":
        """The provider of `options` (local, or local:/path.gguf), its weights under `cache_dir`."""
        return cls(Path(options.name) if options.name else None, cache=cache_dir, draft=options.draft)

    def __init__(
        self, path: Path | None = None, *, cache: Path | None = None, context: int = 8192, draft: int = DEFAULT_DRAFT
    ) -> None:
        if path is None:
            from biarena.llm.weights import FILENAME, model_home, model_path

            self.model = FILENAME
            self.path = model_path(model_home(cache))
        else:
            if not path.is_file():
                raise NotFoundError(f"model file not found: {path}")
            self.model = path.name
            self.path = path
        self.context = context
        self.draft = draft
        """Tokens drafted from the reply's own context and checked in one pass (0: one token per pass)."""
        self._cache = cache
        self._lock = threading.Lock()  # one llama.cpp context: one generation at a time

    def identity(self) -> dict[str, Any]:
        """What the model is: its file's SHA-256 (two files of the same name are two models)."""
        from biarena.llm.gguf_hash import gguf_sha256
        from biarena.llm.weights import model_home

        return {"sha256": gguf_sha256(self.path, model_home(self._cache))}

    @property
    def llama(self) -> Any:
        """The loaded model."""
        return load_llama(self.path, self.context)

    def request_payload(self, request: ChatRequest) -> dict[str, Any]:
        """The parameters of llama.cpp's chat completion call for a request (the cache key is made of them)."""
        kwargs: dict[str, Any] = {
            "messages": llama_messages(request.message_dicts()),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": request.seed if request.seed is not None else 0,
        }
        if request.stop:
            kwargs["stop"] = list(request.stop)
        schema = request.schema_dict()
        if schema is not None and request.structured != "prompt":
            # llama.cpp constrains the reply by a grammar: the schema's own, or any JSON object at `json_object`
            kwargs["response_format"] = {"type": "json_object"}
            if request.structured in (None, "json_schema"):
                kwargs["response_format"]["schema"] = schema
        tools = request.tool_list()
        if tools and request.tool_choice_value() != "none":
            kwargs["tools"] = tools
            forced = request.required_tool()
            if forced is not None:
                if forced and forced not in tool_names(tools):
                    raise InvalidRequestError(f"tool_choice names '{forced}', which is not one of the tools")
                kwargs["response_format"] = {"type": "json_object", "schema": forced_call_schema(tools, forced)}
        if request.logprobs:
            kwargs["top_logprobs"] = request.logprobs
        elif self.draft:
            # a drafted batch's logits may differ from a single token's in the last bits, which can flip a near-tie:
            # replies drafted are cached apart from plain ones (and plain ones keep the key they always had)
            kwargs["draft"] = self.draft
        return kwargs

    def complete(self, request: ChatRequest) -> Completion:
        """Generate a reply in-process."""
        kwargs = self.request_payload(request)
        kwargs.pop("draft", None)
        top = kwargs.pop("top_logprobs", None)
        with self._lock, machine_turn(self.path):
            llama = self.llama
            # the loaded model is shared by providers that may draft differently; a reply whose log-probabilities are
            # read is not drafted, so each place of it is sampled once
            llama.draft = 0 if top else self.draft
            recorder = _recorder(llama, top) if top else None
            if recorder is not None:
                kwargs["logits_processor"] = [recorder]
            try:
                with writing_notices(llama):
                    response = llama.create_chat_completion(**kwargs)
            except ValueError as error:  # e.g. the prompt does not fit the context window
                raise ModelError(f"local model: {error}") from None
        text = response["choices"][0]["message"].get("content") or ""
        usage = response.get("usage") or {}
        finish = response["choices"][0].get("finish_reason")
        calls: tuple[ToolCall, ...] = ()
        if "tools" in kwargs:
            seed = json.dumps(kwargs, sort_keys=True, ensure_ascii=False, default=str)
            if request.required_tool() is not None:
                calls = forced_call(text, kwargs["tools"], seed)
                text = "" if calls else text
            else:
                text, calls = read_tool_calls(text, kwargs["tools"], seed)
        return Completion(
            text=text,
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
            finish_reason="tool_calls" if calls and finish == "stop" else finish,
            tool_calls=calls,
            logprobs=recorder.tokens(text) if recorder is not None and not calls else (),
        )


def _recorder(llama: Any, top: int) -> Any:
    """A logits processor that keeps the reply's log-probabilities (llama.cpp's own need the whole context's
    logits kept)."""
    from biarena.llm.logprob_recorder import LogprobRecorder

    return LogprobRecorder(llama, top)
