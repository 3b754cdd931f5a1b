"""What the run tests share: the installed command line, a small benchmark, stub external systems, and whether the
embedded model is installed."""

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.records import Benchmark, DatabaseRef, Question

BIARENA = Path(sys.executable).parent / "biarena"


def cli(*args: str | Path, timeout: float = 180, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the installed `biarena` entry point with its output captured as a pipe."""
    return subprocess.run(
        [str(BIARENA), *map(str, args)], capture_output=True, text=True, timeout=timeout, check=False, cwd=cwd
    )


def one_line_error(result: subprocess.CompletedProcess, fragment: str = "") -> str:
    """Assert exit code 2 with exactly one `error:` line on stderr (containing `fragment`); return it."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


def make_shop(
    root: Path, sales_db: Path, count: int = 6, *, gold: bool = True, ids: list[str] | None = None, name: str = "shop"
) -> Path:
    """A benchmark directory of `count` questions over the sales database; returns its path."""
    questions = [
        Question(
            id=(ids[i] if ids else f"q{i:04d}"),
            text=f"question {i}",
            database="sales",
            gold_sql=[f"SELECT city_id, sum(amount) FROM sales WHERE qty > {i % 5} GROUP BY city_id"] if gold else [],
            labels=[f"bis:{'filtering' if i % 2 else 'aggregation'}"],
        )
        for i in range(count)
    ]
    bench = Benchmark(name=name, databases={"sales": DatabaseRef(path=str(sales_db))}, questions=questions)
    target = root / name
    save_benchmark(bench, target)
    load_benchmark(target)
    return target


def write_predictions(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write a predictions JSONL file."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def spec_of(run: Path) -> dict[str, Any]:
    """The run's stored spec, read with plain sqlite3."""
    import sqlite3

    with sqlite3.connect(f"file:{run}?mode=ro", uri=True) as conn:
        return json.loads(conn.execute("SELECT value FROM meta WHERE key = 'spec'").fetchone()[0])


def answers_of(run: Path) -> dict[str, dict[str, Any]]:
    """The run's stored answers by question id, read with plain sqlite3."""
    import sqlite3

    with sqlite3.connect(f"file:{run}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT question_id, body FROM answers").fetchall()
    return {qid: json.loads(body) for qid, body in rows}


@dataclass
class Reply:
    """What the stub http system sends: a status, a body (sent in chunks with a pause between), headers."""

    body: bytes = b"{}"
    status: int = 200
    chunk: int = 0
    pause: float = 0.0
    length: int | None = None
    """Content-Length to declare (None: the body's length; -1: none, the body ends when the connection closes)."""


@dataclass
class StubLog:
    """What the stub saw."""

    payloads: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextmanager
def http_system(respond: Callable[[dict], Any]) -> Iterator[tuple[str, StubLog]]:
    """Serve an external http system on loopback: `respond(payload)` returns a JSON value, bytes or a Reply."""
    log = StubLog()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with log.lock:
                log.payloads.append(payload)
            reply = respond(payload)
            if not isinstance(reply, Reply):
                reply = Reply(body=reply if isinstance(reply, bytes) else json.dumps(reply).encode())
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                length = len(reply.body) if reply.length is None else reply.length
                if length >= 0:
                    self.send_header("Content-Length", str(length))
                self.end_headers()
                step = reply.chunk or len(reply.body) or 1
                for start in range(0, len(reply.body), step):
                    self.wfile.write(reply.body[start : start + step])
                    self.wfile.flush()
                    if reply.pause:
                        time.sleep(reply.pause)
            except OSError:
                pass  # the client hung up, as it should on a reply over its limits

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/answer", log
    finally:
        server.shutdown()
        server.server_close()


def tree_state(*roots: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple[int, int]]:
    """Every file under `roots` (but not under `skip`) with its size and modification time."""
    state = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not any(path == s or s in path.parents for s in skip):
                info = path.stat()
                state[str(path)] = (info.st_size, info.st_mtime_ns)
    return state


def require_embedded_model() -> None:
    """Skip a test when llama-cpp-python or the embedded model's data packages are not installed; in CI, fail it."""
    try:
        import llama_cpp  # noqa: F401

        from biarena.llm.weights import part_paths

        part_paths()
    except Exception as error:  # not installed here
        if os.environ.get("CI"):
            pytest.fail(f"the embedded model must be installed in CI: {error}")
        pytest.skip(f"the embedded model is not installed: {error}")
