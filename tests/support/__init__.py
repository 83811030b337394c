"""Reusable helpers for tests and benchmarks that drive the real stack.

Everything here runs real processes on loopback: a private Redis server, a throwaway PostgreSQL
database, an aiosmtpd sink, celery worker/beat and gunicorn subprocesses. The integration suite
(`tests/integration/`) and `bench/service.py` share it.
"""
