"""ray_session: this process joined to a Ray cluster (or to a Ray instance started here) for as long as a campaign or
a partitioned synth runs, with the number of tasks the cluster runs at once.

Ray's releases differ in how a driver joins a cluster: since Ray 2.5x a cluster started with `ray start --head`
where a token file exists (`~/.ray/auth_token`, written by any earlier `ray.init()`) asks every client for that token,
yet a driver given an explicit address does not send it unless RAY_AUTH_MODE=token. The session turns token mode on
when a token is at hand (a cluster without authentication ignores it), on the releases that have it."""

import logging
import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from biarena.errors import UsageError

RAY_OBJECT_STORE = 100 * 1024 * 1024
"""The object store of a Ray instance a campaign starts itself (its results are small)."""
PROBE_SECONDS = 10.0
"""How long a cluster's address may take to accept a connection."""
AUTH_REFUSED = ("InvalidAuthToken", "Unauthenticated", "authentication token")
"""What Ray's client logs when a cluster refuses it for its token."""


def require_ray() -> Any:
    """The ray module; a one-line error saying how to install it when it is missing."""
    try:
        import ray
    except ImportError:
        raise UsageError("--engine ray needs Ray: pip install 'biarena[ray]'") from None
    return ray


@contextmanager
def ray_session(workers: int, address: str | None, object_store: int | None = RAY_OBJECT_STORE) -> Iterator[int]:
    """Join the cluster at `address` (or start a Ray instance with `workers` CPUs and an `object_store` of that many
    bytes, Ray's default when None) unless this process already has Ray running; yields the cluster's CPUs, the
    tasks it runs at once, and leaves Ray as it found it."""
    ray = require_ray()
    started = not ray.is_initialized()
    if started:
        _connect(ray, workers, address, object_store)
    try:
        yield cluster_cpus(ray) or max(1, workers)
    finally:
        if started:
            ray.shutdown()


def cluster_cpus(ray: Any) -> int:
    """The CPUs of the cluster this process is joined to (each campaign task takes one)."""
    return int(ray.cluster_resources().get("CPU", 0))


def _connect(ray: Any, workers: int, address: str | None, object_store: int | None) -> None:
    settings: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
        "logging_level": logging.ERROR,
    }
    if address is None:
        settings["num_cpus"] = max(1, workers)
        if object_store is not None:
            settings["object_store_memory"] = object_store
        try:
            ray.init(**settings)
        except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as error:
            raise UsageError(f"cannot start Ray here: {_one_line(error)}") from None
        return
    _probe(address)
    with _stderr_held() as held:
        try:
            _use_token_when_available()
            ray.init(address=address, **settings)
        except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as error:
            failure = error
        else:
            return
    raise UsageError(_unreachable(address, failure, "".join(held))) from None


def _probe(address: str) -> None:
    """Refuse at once an address where nothing listens (Ray's client would retry it for minutes)."""
    host, _, port = address.rpartition(":")
    if address.startswith("ray://") or not host or not port.isdigit():
        return  # a form Ray resolves itself (ray://, auto): its own error says what is wrong
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as error:
        raise UsageError(
            f"cannot reach the Ray cluster at {address}: {error.strerror or error} "
            "(is `ray start --head` running there, and is the port the one it printed?)"
        ) from None


def _use_token_when_available() -> None:
    """Send the authentication token a cluster may ask for, as `ray start` itself does: when RAY_AUTH_MODE is not
    set and a token is found (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token). Releases without token
    authentication have no such module and need nothing."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


@contextmanager
def _stderr_held() -> Iterator[list[str]]:
    """Hold what is written to file descriptor 2 while connecting (Ray's C++ client logs every retry there); the
    list yielded holds it once the block is left."""
    held: list[str] = []
    with tempfile.TemporaryFile() as sink:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield held
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            held.append(sink.read().decode("utf-8", "replace"))


def _unreachable(address: str, error: BaseException, logged: str) -> str:
    """One line for a cluster that could not be joined, saying why when Ray's logs tell."""
    if any(mark in logged for mark in AUTH_REFUSED) or any(mark in str(error) for mark in AUTH_REFUSED):
        return (
            f"cannot reach the Ray cluster at {address}: it asks for an authentication token this client lacks or has "
            "wrong: set RAY_AUTH_TOKEN to the cluster's (`ray get-auth-token` on the head node), RAY_AUTH_MODE unset"
        )
    return f"cannot reach the Ray cluster at {address}: {_one_line(error)}"


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:200]
