"""kombu's Redis transport, with one client object per channel instead of one per command.

kombu builds a new `redis.Redis` for every publish and every acknowledgement
(`Channel.conn_or_acquire`), and redis-py fills about 170 response callbacks into each new
client: a fifth of what publishing `apply_move` costs the web, and about as much again per
message in a worker. A client is thread-safe and holds nothing but its connection pool, so the
channel keeps one per pool; a new pool (after a fork or a lost connection) gets a new client.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis


class Channel(redis.Channel):
    _kept_client: Any = None

    def _create_client(self, asynchronous: bool = False) -> Any:
        parent: Any = super()  # kombu leaves this method unannotated
        if asynchronous:
            return parent._create_client(asynchronous=True)
        client = self._kept_client
        if client is None or client.connection_pool is not self.pool:
            client = self._kept_client = parent._create_client()
        return client


class Transport(redis.Transport):
    Channel = Channel
