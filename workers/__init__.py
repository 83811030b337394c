"""Celery app and tasks; run with `celery -A workers.celery_app worker` (or `pbem worker`)."""
