"""Node, TaskGraph, LocalEngine, RayEngine: calls that wait for other calls, run as soon as those are done, by worker
processes beside this one or by Ray tasks.

A node is one call (`function(*arguments)`, its arguments made once the nodes it follows are done) or, without a
function, a join: a point that other nodes wait for. A node's `done` runs in this process with its result before
any node that follows it starts (it may keep the result, write a file the followers read, or fail the graph). Ready
calls are taken by priority: the longest chain of work (`cost`) from the node to the graph's end comes first, so the
calls the rest waits for are never left to the end.
"""

import contextlib
import heapq
import importlib
import itertools
import multiprocessing
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import Any

from biarena.leave_with_parent import leave_with_parent
from biarena.registry import Registry

ENGINES: Registry[Any] = Registry(
    "synth engine",
    {
        "local": ("biarena.synth.task_graph:LocalEngine", {"cluster": False}),
        "ray": ("biarena.synth.task_graph:RayEngine", {"cluster": True}),
    },
)
"""What runs a graph's calls (`synth make --engine`): `open(workers, address, modules)` makes one, with `run(nodes)`
and `close()`; `cluster` says whether it takes a cluster's `--address`."""


class Node:
    """One call of a graph, or a join (no `function`)."""

    __slots__ = ("after", "arguments", "cost", "done", "followers", "function", "priority", "result", "waiting")

    def __init__(
        self,
        function: Callable | None,
        arguments: Callable[[], tuple] | tuple = (),
        *,
        after: Sequence["Node"] = (),
        cost: float = 0.0,
        done: Callable[[Any], None] | None = None,
    ) -> None:
        self.function = function
        self.arguments = arguments
        """The call's arguments, or a function that makes them once the nodes in `after` are done."""
        self.after = list(after)
        self.cost = cost
        self.done = done
        self.followers: list[Node] = []
        self.waiting = 0
        self.priority = 0.0
        self.result: Any = None

    def call(self) -> tuple:
        """The call's arguments (made now when given as a function)."""
        return self.arguments() if callable(self.arguments) else self.arguments


class TaskGraph:
    """What is ready to run in a set of nodes, and what becomes ready as they finish (safe from several threads)."""

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.nodes = list(nodes)
        known = set(map(id, self.nodes))
        for node in self.nodes:
            node.followers, node.waiting = [], len(node.after)
        for node in self.nodes:
            for before in node.after:
                if id(before) not in known:
                    raise ValueError("a node follows a node outside the graph")
                before.followers.append(node)
        order = self._order()
        for node in reversed(order):  # the longest chain of work from the node to the end
            node.priority = node.cost + max((f.priority for f in node.followers), default=0.0)
        self.left = len(self.nodes)
        self.lock = threading.Lock()

    def _order(self) -> list[Node]:
        """The nodes, each after those it follows (ValueError on a cycle)."""
        waiting = {id(n): len(n.after) for n in self.nodes}
        todo = [n for n in self.nodes if not n.after]
        order = []
        while todo:
            node = todo.pop()
            order.append(node)
            for follower in node.followers:
                waiting[id(follower)] -= 1
                if not waiting[id(follower)]:
                    todo.append(follower)
        if len(order) != len(self.nodes):
            raise ValueError("the graph has a cycle")
        return order

    def start(self) -> list[Node]:
        """The calls ready at the start (joins that wait for nothing are passed at once)."""
        return self._passed([n for n in self.nodes if not n.after])

    def finish(self, node: Node, result: Any) -> list[Node]:
        """Record a call's result (running its `done`); return the calls this made ready."""
        node.result = result
        if node.done is not None:
            node.done(result)
        return self._passed(self._release(node))

    def _release(self, node: Node) -> list[Node]:
        with self.lock:
            self.left -= 1
            ready = []
            for follower in node.followers:
                follower.waiting -= 1
                if not follower.waiting:
                    ready.append(follower)
            return ready

    def _passed(self, ready: list[Node]) -> list[Node]:
        calls, todo = [], list(ready)
        while todo:
            node = todo.pop()
            if node.function is not None:
                calls.append(node)
                continue
            if node.done is not None:
                node.done(None)
            todo.extend(self._release(node))
        return calls


class _Ready:
    """Ready calls by priority (highest first; among equals, the first made ready)."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Node]] = []
        self.count = itertools.count()

    def push(self, nodes: Sequence[Node]) -> None:
        for node in nodes:
            heapq.heappush(self.heap, (-node.priority, next(self.count), node))

    def pop(self) -> Node:
        return heapq.heappop(self.heap)[2]

    def __len__(self) -> int:
        return len(self.heap)


class LocalEngine:
    """Calls run in this process and, with more than one worker, in `workers - 1` worker processes beside it.

    A thread of this process hands the workers ready calls, as many as they run at once and one more while other
    calls are ready (so a worker never waits for the next), and records what they return; this process runs the
    ready calls no worker has taken, so it draws too rather than wait. Nothing is handed to the pool from its own
    callbacks (they run in the pool's thread).

    On Linux, when no other thread runs in this process, the workers are forked from it once it has imported what
    they need (a fork copies nothing until written, and leaves no lock held by another thread); otherwise they
    fork from a fork server, started in a thread of its own while this process works, that imports `modules` (the
    installed ones) once for all of them: the modules the calls' functions are in, and what those import on first
    use."""

    cluster = False
    """Whether it runs on a cluster a `--address` names."""

    @classmethod
    def open(cls, workers: int, address: str | None, modules: Sequence[str]) -> "LocalEngine":
        """The engine for `workers` processes, forked once `modules` are imported (no `address`: it is local)."""
        return cls(workers, modules)

    def __init__(self, workers: int, modules: Sequence[str] = ()) -> None:
        self.pool: Any = None
        self.workers = workers - 1
        self.modules = tuple(modules)
        self.ready = _Ready()
        self.finished: deque[tuple[Node, Any]] = deque()
        self.graph: TaskGraph | None = None
        self.running = 0
        self.changed = threading.Condition()
        """Notified when calls are ready or done, the workers are up (or failed to start), or the engine closes."""
        self.up = self.closed = False
        self.failed: BaseException | None = None
        if not self.workers:
            return
        if sys.platform.startswith("linux") and threading.active_count() == 1:
            for name in self.modules:
                with contextlib.suppress(ImportError):
                    importlib.import_module(name)
            self._start(multiprocessing.get_context("fork"))
        else:
            threading.Thread(target=self._start, args=(None,), name="graph-workers", daemon=True).start()

    def _start(self, context: Any) -> None:
        from concurrent.futures import ProcessPoolExecutor

        from biarena.synth.writer_process import worker_context

        try:
            if context is None:
                context = worker_context(__name__, also=self.modules)
            # with `fork`, the pool forks every worker here, before it starts threads of its own
            pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=leave_with_parent)
            pool.submit(int).result()  # the workers are up
            self.pool = pool
        except BaseException as error:  # raised where the graph runs
            self.failed = error
        with self.changed:
            self.up = True
            self.changed.notify_all()
        if self.pool is not None:
            threading.Thread(target=self._hand_out, name="graph-feeder", daemon=True).start()

    @property
    def draws_elsewhere(self) -> bool:
        """True when calls also run in other processes (which read what they need from files, not this memory)."""
        return self.workers > 0

    def _hand_out(self) -> None:
        """Record the workers' results and hand them ready calls (a thread of its own)."""
        while True:
            with self.changed:
                while not self.closed and not self.finished and not self._may_hand_out():
                    self.changed.wait()
                if self.closed:
                    return
                graph = self.graph
                if self.finished:
                    node, result = self.finished.popleft()
                    call = None
                else:
                    node, result = self.ready.pop(), None
                    call = node
                    self.running += 1
            if call is None:
                if graph is not None:  # else the graph failed and its run has ended
                    self._finish(graph, node, result)
                continue
            try:
                future = self.pool.submit(call.function, *call.call())
            except BaseException as error:  # the pool broke or closed: raised where the graph runs
                self._fail(error)
                return
            future.add_done_callback(lambda done, node=call: self._returned(node, done))

    def _may_hand_out(self) -> bool:
        if self.graph is None or self.failed is not None or not self.ready:
            return False
        return self.running < self.workers or (self.running < self.workers + 1 and len(self.ready) > 1)

    def _returned(self, node: Node, future: Any) -> None:
        """A worker's call is done (in the pool's thread): leave its result to the feeder."""
        with self.changed:
            self.running -= 1
            error = future.exception()
            if error is not None:
                self.failed = self.failed or error
            else:
                self.finished.append((node, future.result()))
            self.changed.notify_all()

    def _finish(self, graph: TaskGraph, node: Node, result: Any) -> None:
        try:
            ready = graph.finish(node, result)
        except BaseException as error:
            self._fail(error)
            return
        with self.changed:
            if graph is self.graph:
                self.ready.push(ready)
                self.changed.notify_all()

    def _fail(self, error: BaseException) -> None:
        with self.changed:
            self.failed = self.failed or error
            self.changed.notify_all()

    def run(self, nodes: Sequence[Node]) -> None:
        """Run every call of the graph the nodes make (each node's result in `result`); raise what a call raised."""
        graph = TaskGraph(nodes)
        with self.changed:
            if self.graph is not None:
                raise RuntimeError("the engine runs one graph at a time")
            self.graph = graph
            self.ready.push(graph.start())
            self.changed.notify_all()
        try:
            while True:
                with self.changed:
                    while self.failed is None and graph.left and not self.ready:
                        self.changed.wait()
                    if self.failed is not None:
                        raise self.failed
                    if not graph.left:
                        return
                    node = self.ready.pop()
                result = node.function(*node.call())
                self._finish(graph, node, result)
        finally:
            with self.changed:
                self.graph = None
                self.ready = _Ready()
                self.finished.clear()

    def close(self) -> None:
        """Stop the workers."""
        with self.changed:
            self.closed = True
            self.changed.notify_all()
            while self.workers and not self.up:
                self.changed.wait()
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


class RayEngine:
    """Calls run as Ray tasks, on a local Ray instance or the cluster at `address` (needs biarena[ray])."""

    cluster = True
    """Whether it runs on a cluster a `--address` names."""

    @classmethod
    def open(cls, workers: int, address: str | None, modules: Sequence[str]) -> "RayEngine":
        """The engine on the cluster at `address`, or on a Ray instance with `workers` CPUs (Ray imports what the
        calls need)."""
        return cls(workers, address)

    def __init__(self, workers: int, address: str | None) -> None:
        from biarena.ray_session import ray_session, require_ray

        self.ray = require_ray()
        self.session = ExitStack()
        # Ray's own object store size: calls may send more back than a campaign's results
        self.session.enter_context(ray_session(workers, address, object_store=None))
        self.remote: dict[Callable, Any] = {}

    draws_elsewhere = True
    """Ray tasks run in processes of their own."""

    def run(self, nodes: Sequence[Node]) -> None:
        """Run every call of the graph as a Ray task once the calls it follows are done (Ray schedules them)."""
        graph = TaskGraph(nodes)
        running: dict[Any, Node] = {}
        ready = graph.start()
        while graph.left:
            for node in ready:
                assert node.function is not None
                remote = self.remote.setdefault(node.function, self.ray.remote(node.function))
                running[remote.remote(*node.call())] = node
            done, _ = self.ray.wait(list(running), num_returns=1)
            ready = graph.finish(running.pop(done[0]), self.ray.get(done[0]))

    def close(self) -> None:
        """Leave Ray as it was found."""
        self.session.close()
