"""pbem.redis_transport against a real Redis: one client per channel, and messages still flow."""

from __future__ import annotations

from kombu import Connection

from tests.support.stack import Stack

TRANSPORT = "pbem.redis_transport:Transport"


def test_a_channel_keeps_one_client_until_its_pool_changes(stack: Stack) -> None:
    with Connection(stack.redis.url, transport=TRANSPORT) as conn:
        channel = conn.default_channel
        first = channel._create_client()
        assert channel._create_client() is first
        channel._pool = None  # what kombu does after a fork or a lost connection
        fresh = channel._create_client()
        assert fresh is not first and fresh.connection_pool is channel.pool


def test_messages_round_trip_through_the_kept_client(stack: Stack) -> None:
    with Connection(stack.redis.url, transport=TRANSPORT) as conn:
        queue = conn.SimpleQueue("pbem-transport-test")
        try:
            for n in range(3):
                queue.put({"n": n})
            got = []
            for _ in range(3):
                message = queue.get(timeout=5)
                got.append(message.payload["n"])
                message.ack()
            assert got == [0, 1, 2]
        finally:
            queue.clear()
            queue.close()


def test_the_service_uses_it_whenever_redis_is_configured(stack: Stack) -> None:
    from pbem.app import create_app

    app = create_app({"REDIS_URL": stack.redis.url, "DATABASE_URL": "sqlite://"})
    with app.extensions["celery"].connection_for_write() as conn:
        assert type(conn.transport).__module__ == "pbem.redis_transport"
