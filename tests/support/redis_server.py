"""A private redis-server on a free loopback port that a test may stop and start again."""

from __future__ import annotations

import shutil
import socket
import tempfile
from pathlib import Path

from tests.support.procs import LOOPBACK, Proc, free_port, port_open, wait_until


def redis_binary() -> str | None:
    return shutil.which("redis-server")


class RedisServer:
    """redis-server with no persistence: stopping it loses every queued message, as a crash would.

    The port stays the same across restarts so the URL given to workers and web processes stays
    valid; clients reconnect by themselves.
    """

    def __init__(self, port: int | None = None, log_dir: Path | str | None = None) -> None:
        binary = redis_binary()
        if binary is None:
            raise RuntimeError("redis-server is not installed (scripts/services.sh installs it)")
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-redis-"))
        self.proc = Proc(
            f"redis-{self.port}",
            [
                binary,
                "--port", str(self.port),
                "--bind", LOOPBACK,
                "--save", "",
                "--appendonly", "no",
                "--dir", str(self.dir),
                "--protected-mode", "no",
            ],
            log_dir=log_dir or self.dir,
        )  # fmt: skip

    @property
    def url(self) -> str:
        return f"redis://{LOOPBACK}:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.proc.running

    def start(self) -> RedisServer:
        if not self.proc.running:
            self.proc.start()
            wait_until(
                lambda: self.ping() or not self.proc.running,
                timeout=30,
                message=f"redis-server on port {self.port} to answer",
            )
            if not self.proc.running:
                raise RuntimeError(f"redis-server failed to start:\n{self.proc.log_tail()}")
        return self

    def stop(self) -> None:
        """Kill it: queued tasks vanish, as when a Redis host dies."""
        self.proc.kill()
        wait_until(lambda: not port_open(self.port), timeout=30, message="redis port to close")

    def ping(self) -> bool:
        return self.command("PING") == "+PONG"

    def command(self, *args: str) -> str:
        """One command over a raw socket (no client library needed); the first reply line."""
        payload = f"*{len(args)}\r\n".encode()
        for arg in args:
            data = arg.encode()
            payload += b"$%d\r\n%s\r\n" % (len(data), data)
        try:
            with socket.create_connection((LOOPBACK, self.port), timeout=5) as sock:
                sock.sendall(payload)
                reply = b""
                while not reply.endswith(b"\r\n"):
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
        except OSError:
            return ""
        return reply.split(b"\r\n", 1)[0].decode()

    def flush(self) -> None:
        self.command("FLUSHALL")
