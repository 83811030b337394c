"""A worker host's figures for Prometheus: the counters of its worker processes (shared through
`PBEM_METRICS_DIR`, `pbem.ops.metrics`) served on `PBEM_METRICS_HOST:PBEM_METRICS_PORT` by a
bootstep of a worker's main process. The host's Celery workers (the Procfile's worker, picture
and bot) each try the port: the first to bind it serves them all, and the others try again every
30 seconds, so that one of them takes over when that process stops."""

from __future__ import annotations

import logging
from typing import Any

from celery import bootsteps
from flask import Flask
from prometheus_client import start_http_server

from pbem.config import Settings
from pbem.ops import heartbeats, metrics

log = logging.getLogger(__name__)


def metrics_step(flask_app: Flask) -> type[bootsteps.StartStopStep]:
    """The bootstep class for a worker of this app (`celery.steps["worker"].add(...)`)."""
    config: Settings = flask_app.config["PBEM"]

    class MetricsServer(bootsteps.StartStopStep):  # type: ignore[misc]
        requires = ("celery.worker.components:Timer",)

        def __init__(self, worker: Any, **kwargs: Any) -> None:
            super().__init__(worker, **kwargs)
            self.server: Any = None
            self.timer_entry: Any = None
            self.told = False

        def include_if(self, worker: Any) -> bool:
            return config.ops.metrics_port is not None

        def start(self, worker: Any) -> None:
            if not self.serve():
                self.timer_entry = worker.timer.call_repeatedly(
                    heartbeats.INTERVAL_SECONDS, self.serve, priority=10
                )

        def serve(self) -> bool:
            if self.server is not None:
                return True
            host, port = config.ops.metrics_host, config.ops.metrics_port
            assert port is not None
            try:
                self.server, _thread = start_http_server(
                    port, addr=host, registry=metrics.process_registry()
                )
            except OSError as exc:
                if not self.told:
                    # Another process of this host serves them (or the port is taken).
                    log.info("metrics: %s:%s not served from here (%s)", host, port, exc.strerror)
                    self.told = True
                return False
            log.info("metrics: serving this host's worker counters on %s:%s", host, port)
            if self.timer_entry is not None:
                self.timer_entry.cancel()
            return True

        def stop(self, worker: Any) -> None:
            if self.timer_entry is not None:
                self.timer_entry.cancel()
            if self.server is not None:
                self.server.shutdown()
                self.server.server_close()

    return MetricsServer
