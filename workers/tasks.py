"""Celery tasks: ids in, never ORM objects; each one idempotent."""
