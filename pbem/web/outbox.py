"""`/outbox`: the mail saved by the embedded default, newest first, with the links clickable.

Only in development and test, and only without SMTP_URL: the page shows every link pbem mailed,
so anywhere else it would hand any visitor every seat.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, make_response, render_template

from pbem import mail
from pbem.extensions import settings

bp = Blueprint("outbox", __name__)

ENVIRONMENTS = ("development", "test")


@bp.get("/outbox")
def index() -> Response:
    config = settings()
    if config.env not in ENVIRONMENTS or not config.mail_to_files:
        abort(404)
    response = make_response(
        render_template(
            "pages/outbox.html",
            mails=mail.saved_mails(config.outbox_dir),
            folder=config.outbox_dir,
        )
    )
    # Every link of every seat is on this page.
    response.headers["Cache-Control"] = "no-store"
    return response
