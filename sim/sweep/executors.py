"""Where sweep points (and ``compare``'s runs) execute: this machine's cores, or a Dask cluster.

Both executors take a picklable module-level function and a list of items and offer
``imap_unordered`` (yield ``(index, Outcome)`` as each item finishes, for progress) and ``map``
(results in order).  The work is deterministic per item (every run draws from its own seeded
streams), so the executor changes only where and when an item runs, never its result.

* :class:`LocalExecutor`: a :class:`~concurrent.futures.ProcessPoolExecutor` with N worker
  processes (in this process for N = 1, which keeps tracebacks and monkeypatching simple).  A
  worker process that dies (OOM killer, ``kill -9``) breaks the whole pool in CPython, so the
  unfinished items are resubmitted to a fresh pool, up to :data:`MAX_ATTEMPTS` times each.
  Its workers are started by :func:`pool_context` (a fork server, not ``fork()``), as are
  ``compare``'s seed-set pools.
* :class:`DaskExecutor`: a ``distributed`` client for the scheduler at ``address``, or a
  ``LocalCluster`` of N single-threaded worker processes when no address is given.  When a
  worker dies the scheduler reschedules its tasks on the others (``distributed.scheduler.
  allowed-failures``, https://distributed.dask.org/en/stable/killed.html); a task that kills
  every worker it lands on comes back as a failed outcome instead of hanging the sweep.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from thermogov.interfaces import ConfigError, RuntimeFailure, ThermogovError

MAX_ATTEMPTS = 3
EXECUTORS = ("local", "dask")
# What a pool's worker imports once in the fork server, so each worker forked from it starts
# with the simulator loaded instead of importing it again (about a second on a loaded board).
WORKER_PRELOAD = ["thermogov.sim.model.runner", "thermogov.sim.sweep.point", "thermogov.sim.compare.compare"]


def pool_context() -> multiprocessing.context.BaseContext:
    """The start method of every process pool of ``sweep`` and ``compare``: a fork server where
    the platform has one, else spawn; never a plain ``fork()``.

    A pool is made from a process that may hold threads (a Dask client, a progress thread, the
    test runner's): ``fork()`` copies only the calling thread, so a lock another thread held is
    held forever in the child, which can hang a worker.  Python 3.12 warns of it
    (DeprecationWarning "This process is multi-threaded, use of fork() may lead to deadlocks",
    https://docs.python.org/3/library/os.html#os.fork) and 3.14 stops using fork by default
    (https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods).  The
    fork server is one single-threaded process started once (with :data:`WORKER_PRELOAD`
    imported), that forks each worker: start-up stays cheap, and every worker imports the
    simulator itself, so results are those of a fresh process, as each item's seeded streams
    already make them."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(WORKER_PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


@dataclass(frozen=True, slots=True)
class Outcome:
    ok: bool
    value: Any = None
    error: str = ""
    # The exception itself, so that ``map`` can hand bad input (a ThermogovError raised in a
    # worker: ``compare --policy fixed:nan``) to the CLI as bad input, not as an internal error.
    exc: BaseException | None = None


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class _Base:
    workers: int

    def __enter__(self) -> _Base:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        return None

    def imap_unordered(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Outcome]]:
        raise NotImplementedError

    def map(
        self, fn: Callable[[Any], Any], items: Sequence[Any], done: Callable[[int, Any], None] | None = None
    ) -> list[Any]:
        """Results in item order; the first failure raises (``compare`` needs every run).
        ``done(index, result)`` is called as each item finishes (progress), in finishing order."""
        out: list[Any] = [None] * len(items)
        for i, o in self.imap_unordered(fn, items):
            if not o.ok:
                if isinstance(o.exc, ThermogovError | RuntimeFailure):
                    raise o.exc  # exit 2 (or 1) with its own one line, as if run in-process
                if isinstance(o.exc, OSError):  # the disk or the environment, not a bug
                    raise RuntimeFailure(f"run {i + 1} of {len(items)} failed: {o.error}")
                raise RuntimeError(f"run {i + 1} of {len(items)} failed: {o.error}")
            out[i] = o.value
            if done is not None:
                done(i, o.value)
        return out

    def describe(self) -> str:
        raise NotImplementedError


class LocalExecutor(_Base):
    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or cpu_count()
        self._current: ProcessPoolExecutor | None = None

    def worker_pids(self) -> list[int]:
        """The current pool's worker processes (empty when running in this process)."""
        pool = self._current
        # ProcessPoolExecutor keeps no public list; _processes maps pid -> Process.
        return sorted(getattr(pool, "_processes", None) or {}) if pool is not None else []

    def describe(self) -> str:
        return f"{self.workers} local worker{'s' if self.workers != 1 else ''}"

    def imap_unordered(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Outcome]]:
        if self.workers == 1 or len(items) <= 1:
            for i, item in enumerate(items):
                try:
                    yield i, Outcome(True, fn(item))
                except Exception as e:
                    yield i, Outcome(False, error=f"{type(e).__name__}: {e}", exc=e)
            return
        yield from self._pool(fn, items)

    def _pool(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Outcome]]:
        todo = list(range(len(items)))
        attempts = dict.fromkeys(todo, 0)
        while todo:
            pool = ProcessPoolExecutor(max_workers=min(self.workers, len(todo)), mp_context=pool_context())
            self._current = pool
            try:
                pending: dict[Future[Any], int] = {}
                for i in todo:
                    attempts[i] += 1
                    pending[pool.submit(fn, items[i])] = i
                todo = []
                broken = False
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        i = pending.pop(fut)
                        try:
                            yield i, Outcome(True, fut.result())
                        except BrokenProcessPool:
                            broken = True
                            if attempts[i] >= MAX_ATTEMPTS:
                                msg = f"worker process died {attempts[i]} times running it"
                                yield i, Outcome(False, error=msg)
                            else:
                                todo.append(i)
                        except Exception as e:
                            yield i, Outcome(False, error=f"{type(e).__name__}: {e}", exc=e)
                if broken:
                    todo.sort()
            except BaseException:
                # A stop (SIGINT/SIGTERM to this process alone: `kill -INT`, `timeout -s INT`,
                # systemd) or the consumer giving up (``map``'s first failure, GeneratorExit):
                # the points in flight are abandoned, so end their workers now rather than wait
                # for them; a point runs for up to its whole simulated duration, and shutdown()
                # waited for it (a sweep of 10 h points sat for minutes after Ctrl-C).  SIGKILL,
                # not a stop the worker could turn into a tidy end: a run killed mid-way has no
                # summary.json, which is what marks a run folder complete (point.is_complete).
                _kill_workers(pool)
                raise
            finally:  # also when the consumer stops early (Ctrl-C): queued items never start
                pool.shutdown(wait=True, cancel_futures=True)
                self._current = None


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """SIGKILL every worker process of ``pool`` that is still alive."""
    # ProcessPoolExecutor keeps no public list; _processes maps pid -> Process.
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, ValueError):  # already gone, or closed
            proc.kill()


LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    # Each worker's (and the in-process scheduler's) event loop wakes up on these timers and
    # must take the GIL from the simulation thread every time; measured on a 2-core machine, a
    # point ran ~10 % slower on a default worker than in a plain process, with ~90 involuntary
    # context switches per 0.3 s point instead of ~9.  Keys: distributed's distributed.yaml,
    # https://distributed.dask.org/en/stable/configuration.html
    "distributed.worker.profile.enabled": False,  # statistical profiler: samples every 10 ms
    "distributed.admin.tick.interval": "1s",  # event-loop blockage check, default every 20 ms
    "distributed.worker.memory.monitor-interval": "1s",  # psutil RSS poll, default 100 ms
    "distributed.admin.system-monitor.interval": "5s",  # CPU/net/disk poll, default 500 ms
    # The nanny sets MALLOC_TRIM_THRESHOLD_=65536 so that glibc hands freed memory back at
    # once; a point allocates and frees small numpy arrays all the time and keeps little.
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
}
"""Settings for the LocalCluster this executor starts.  A cluster given by ``--scheduler`` is
configured by whoever started its workers (the same keys, e.g. in ``~/.config/dask/``)."""


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise ConfigError(
            "--executor dask: the dask extra is not installed; pip install 'thermogov[dask]'"
        ) from e
    return distributed


class DaskExecutor(_Base):
    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        distributed = _import_distributed()
        self._distributed = distributed
        self.address = address
        self.cluster: Any = None
        if address:
            _check_address(distributed, address)
            try:
                # Not set as the process's default client: thermogov never uses the default, and
                # a default client whose start failed (an address without a port) stays in
                # distributed's registry, whose exit hook then prints a traceback on 3.10.
                self.client = distributed.Client(address, timeout="20s", set_as_default=False)
            except (OSError, TimeoutError) as e:
                raise ConfigError(
                    f"--scheduler: cannot reach a Dask scheduler at {address} ({e}); start "
                    "`dask scheduler` there or fix the address"
                ) from e
            self.workers = max(len(self.client.scheduler_info().get("workers", {})), 1)
        else:
            import logging

            import dask

            self.workers = workers or cpu_count()
            environ = dict(os.environ)
            try:
                with dask.config.set(LOCAL_CLUSTER_CONFIG):
                    self.cluster = distributed.LocalCluster(
                        n_workers=self.workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.ERROR,
                    )
            finally:
                # Each nanny writes its workers' pre-spawn variables (OMP_NUM_THREADS=1,
                # PYTHONHASHSEED...) into this process's environment and leaves them there.
                os.environ.clear()
                os.environ.update(environ)
            self.client = distributed.Client(self.cluster, set_as_default=False)
        # Import the simulator on every worker now, not inside the first point of each.
        self.client.run(_warm_up)

    def describe(self) -> str:
        where = self.address or "a LocalCluster"
        return f"Dask at {where} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def imap_unordered(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Outcome]]:
        # pure=False: two equal items (compare's repeated configs) are still two runs.
        futures = self.client.map(fn, list(items), pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for fut in self._distributed.as_completed(futures, loop=self.client.loop):
                i = index[fut.key]
                try:
                    yield i, Outcome(True, fut.result())
                except Exception as e:  # KilledWorker, or the function's own exception
                    yield i, Outcome(False, error=f"{type(e).__name__}: {e}", exc=e)
                fut.release()
        finally:
            for f in futures:
                if not f.done():
                    f.cancel()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _check_address(distributed: Any, address: str) -> None:
    """Parse the address before any Client exists: a Client whose start fails on a malformed
    address is left half-built, and its finaliser then prints a traceback (or waits 40 s) as
    the interpreter exits, after the one-line error has already been given."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address)
        get_backend(scheme)  # an unknown scheme ("htp://...") is refused here
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)  # "nonsense": missing port number
    except ValueError as e:
        raise ConfigError(
            f"--scheduler: {address!r} is not a scheduler address ({e}); give tcp://HOST:PORT"
        ) from e


def _warm_up() -> None:
    import thermogov.sim.model.runner  # noqa: F401


def check_executor(kind: str, scheduler: str | None = None) -> None:
    """Refuse an executor that cannot start (before any folder is made); input errors, exit 2."""
    if kind not in EXECUTORS:
        raise ConfigError(f"--executor: unknown executor {kind!r}; choose local or dask")
    if scheduler and kind != "dask":
        raise ConfigError("--scheduler: only with --executor dask")
    if kind == "dask":
        _import_distributed()


def make_executor(kind: str, workers: int | None = None, scheduler: str | None = None) -> _Base:
    """The executor the command line asked for; bad combinations are input errors (exit 2)."""
    check_executor(kind, scheduler)
    if kind == "dask":
        return DaskExecutor(workers, scheduler)
    return LocalExecutor(workers)


Executor = _Base
