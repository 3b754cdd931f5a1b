"""`biarena campaign --engine ray --address` against a cluster started with `ray start --head` (loopback port, its
own temp dir, token authentication as Ray 2.5x turns it on), stopped afterwards; and the one line for an address
where nothing listens."""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.campaign_helpers import make_campaign_plan

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 120


@dataclass(frozen=True)
class Cluster:
    address: str
    token_path: Path | None
    """The cluster's token file when it asks for one (the Ray release has token authentication)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _has_token_auth() -> bool:
    try:
        import ray._private.authentication.authentication_token_setup  # noqa: F401
    except ImportError:
        return False
    return True


def _environ(**changes: str | None) -> dict[str, str]:
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), str(ROOT), environ.get("PYTHONPATH")) if p)
    for name in ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        environ.pop(name, None)
    for name, value in changes.items():
        if value is not None:
            environ[name] = value
    return environ


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A one-node cluster as `ray start --head --block` makes it; every process it started is ended afterwards."""
    root = tmp_path_factory.mktemp("ray-cluster")
    token_path = None
    auth: dict[str, str | None] = {}
    if _has_token_auth():
        token_path = root / "token"
        token_path.write_text(os.urandom(32).hex(), encoding="utf-8")
        auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token_path)}
    port = _free_port()
    # Ray's socket paths live under its temp dir and may not pass 107 bytes: a pytest worker's path is too long
    short_temp = tempfile.mkdtemp(prefix="br-", dir="/tmp")
    log = (root / "ray.log").open("w")
    head = subprocess.Popen(
        [
            *(sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block"),
            *("--port", str(port), "--temp-dir", short_temp, "--num-cpus", "2"),
            *("--include-dashboard", "false", "--disable-usage-stats"),
            *("--node-ip-address", "127.0.0.1"),  # the node names loopback to its clients, not the machine's address
        ],
        env=_environ(**auth),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    started: list = []
    try:
        deadline = time.monotonic() + START_SECONDS
        while "Ray runtime started" not in (root / "ray.log").read_text(errors="replace"):
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail("ray start --head did not start:\n" + (root / "ray.log").read_text(errors="replace"))
            time.sleep(0.5)
        started = psutil.Process(head.pid).children(recursive=True)
        yield Cluster(f"127.0.0.1:{port}", token_path)
    finally:
        started += psutil.Process(head.pid).children(recursive=True) if head.poll() is None else []
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        for process in started:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        log.close()
        shutil.rmtree(short_temp, ignore_errors=True)


def _campaign(plan: Path, out: Path, address: str, **environ: str | None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "biarena",
            "campaign",
            str(plan),
            "-o",
            str(out),
            "--engine",
            "ray",
            "--address",
            address,
        ],
        env=_environ(**environ),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_a_campaign_joins_a_cluster_started_with_ray_start(tmp_path: Path, cluster: Cluster) -> None:
    plan = make_campaign_plan(tmp_path, questions=2)
    token = {"RAY_AUTH_TOKEN_PATH": str(cluster.token_path)} if cluster.token_path else {}
    done = _campaign(plan, tmp_path / "out", cluster.address, **token)
    assert done.returncode == 0, done.stderr
    assert f"ray engine at {cluster.address}, 2 workers" in done.stderr
    assert "gcs_client" not in done.stderr and "WARNING" not in done.stderr
    assert "done: 8 units now, 0 before" in done.stderr
    assert ",error," not in (tmp_path / "out" / "results.csv").read_text()


@pytest.mark.slow
def test_a_cluster_that_refuses_the_client_is_one_line(tmp_path: Path, cluster: Cluster) -> None:
    if cluster.token_path is None:
        pytest.skip("this Ray release has no token authentication")
    plan = make_campaign_plan(tmp_path, questions=1)
    refused = _campaign(plan, tmp_path / "out", cluster.address, RAY_AUTH_MODE="disabled")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [refused.stderr.strip()]
    assert "asks for an authentication token" in refused.stderr and "RAY_AUTH_TOKEN" in refused.stderr


def test_an_address_where_nothing_listens_is_one_line(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=1)
    address = f"127.0.0.1:{_free_port()}"
    refused = _campaign(plan, tmp_path / "out", address)
    assert refused.returncode == 2
    assert refused.stderr.strip() == refused.stderr.strip().splitlines()[0]
    assert f"cannot reach the Ray cluster at {address}" in refused.stderr
