"""Server replicas for the sharding tests: real ``node dist/cli/main.js serve`` processes on loopback.

Each replica is a child process of the test, started on a free port (``--port 0``, read from its startup
line) and stopped by its PID: SIGKILL for a replica that dies, SIGTERM (a drain) at the end. A killed
replica can be started again on the same port. ``HARNESS_GYM_NODE`` / ``HARNESS_GYM_CLI`` name the node
binary and the built CLI (test/clients/python.test.ts sets them); the defaults are ``node`` on ``PATH``
and the repository's ``dist/cli/main.js``.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")


def node_and_cli() -> List[str]:
    node = os.environ.get("HARNESS_GYM_NODE") or shutil.which("node")
    cli = os.environ.get("HARNESS_GYM_CLI") or os.path.join(REPO, "dist", "cli", "main.js")
    if not node:
        raise RuntimeError("no node binary: set HARNESS_GYM_NODE or put node on PATH")
    if not os.path.exists(cli):
        raise RuntimeError(f"{cli} is missing: build first (node_modules/.bin/tsc -p tsconfig.build.json; npm test does)")
    return [node, cli]


class Replicas:
    """``n`` server replicas; ``urls[i]`` is replica ``i``'s WebSocket URL, ``pids[i]`` its process id."""

    def __init__(self, n: int, extra_args: Optional[List[str]] = None) -> None:
        self.n = n
        self.extra_args = list(extra_args or [])
        self.procs: List[Optional["subprocess.Popen[str]"]] = [None] * n
        self.ports: List[int] = [0] * n
        self.output: List[List[str]] = [[] for _ in range(n)]

    @property
    def urls(self) -> List[str]:
        return [f"ws://127.0.0.1:{p}/v1/env" for p in self.ports]

    @property
    def pids(self) -> List[int]:
        return [p.pid if p is not None else -1 for p in self.procs]

    def http(self, i: int, path: str) -> str:
        return f"http://127.0.0.1:{self.ports[i]}{path}"

    def _spawn(self, i: int, port: int) -> "subprocess.Popen[str]":
        args = node_and_cli() + [
            "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "0",
            "--log-level", "error", "--allow-oracle-hints",
        ] + self.extra_args
        return subprocess.Popen(args, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def _await_listening(self, i: int, proc: "subprocess.Popen[str]", timeout_s: float = 60.0) -> int:
        assert proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                    continue
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"replica {i} exited ({proc.wait()}) before listening: {''.join(self.output[i])}")
                self.output[i].append(line)
                match = LISTENING.search(line)
                if match:
                    break
            else:
                raise RuntimeError(f"replica {i} did not start in {timeout_s}s: {''.join(self.output[i])}")
        finally:
            selector.close()
        # Keep reading its output so that a full pipe never blocks the server.
        threading.Thread(target=self._drain, args=(i, proc), daemon=True).start()
        return int(match.group(1))

    def _drain(self, i: int, proc: "subprocess.Popen[str]") -> None:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                self.output[i].append(line)
        finally:
            proc.stdout.close()

    def start(self) -> "Replicas":
        """Start every replica at once; returns when all listen."""
        procs = [self._spawn(i, 0) for i in range(self.n)]
        try:
            for i, proc in enumerate(procs):
                self.procs[i] = proc
                self.ports[i] = self._await_listening(i, proc)
        except BaseException:
            self.stop()
            raise
        return self

    def kill(self, i: int, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to replica ``i`` by its PID (SIGKILL: it dies at once, no close frame, no drain)."""
        proc = self.procs[i]
        assert proc is not None
        os.kill(proc.pid, sig)
        if sig in (signal.SIGKILL, signal.SIGTERM):
            proc.wait(timeout=30)

    def alive(self, i: int) -> bool:
        proc = self.procs[i]
        return proc is not None and proc.poll() is None

    def restart(self, i: int) -> None:
        """Start replica ``i`` again on its port (after a kill)."""
        if self.alive(i):
            return
        deadline = time.monotonic() + 20
        while True:  # the port may linger for a moment after the kill
            proc = self._spawn(i, self.ports[i])
            try:
                self._await_listening(i, proc)
                self.procs[i] = proc
                return
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM every live replica (a graceful drain) and wait for it."""
        for i, proc in enumerate(self.procs):
            if proc is not None and proc.poll() is None:
                os.kill(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            if proc is not None:
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait()

    def metric(self, i: int, name: str) -> float:
        """One unlabelled gauge or counter from replica ``i``'s ``/metrics``."""
        text = urllib.request.urlopen(self.http(i, "/metrics"), timeout=10).read().decode()
        match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
        assert match, f"no {name} on replica {i}'s /metrics"
        return float(match.group(1))

    def status(self, i: int, path: str) -> int:
        """The HTTP status of ``GET path`` on replica ``i``."""
        try:
            return urllib.request.urlopen(self.http(i, path), timeout=10).status
        except urllib.error.HTTPError as exc:
            return exc.code
