"""leave_with_parent: a pool worker's initializer that ends the worker as soon as the process that started it is
gone, even killed with SIGKILL.

Without it a killed parent leaves its pool's workers waiting forever on queues whose other ends they hold
themselves, and with them the fork server (each worker holds its "alive" pipe open) and the resource tracker (which
waits for all of them). The watch is the pipe multiprocessing gives every child for this: the parent holds its write
end, so it reads as closed the moment the parent dies, however it dies. A worker forked by a fork server is no child
of the process that asked for it, so the kernel's parent-death signal would tie it to the fork server instead.
"""

import multiprocessing
import os
import threading


def leave_with_parent() -> None:
    """Pool worker initializer: watch the parent in a thread and exit at once when it is gone."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_after, args=(parent,), name="leave-with-parent", daemon=True).start()


def _exit_after(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()
    # at once, mid-call: the parent that would take the result is gone (a campaign's run file resumes where it
    # stopped; a simulator's output is written again)
    os._exit(1)
