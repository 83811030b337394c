"""`/outbox`: the mail saved by the embedded default, newest first, with the links clickable.

Only without SMTP_URL: with real mail the links are private to their recipients.
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from pbem import mail
from pbem.extensions import settings

bp = Blueprint("outbox", __name__)


@bp.get("/outbox")
def index() -> str:
    config = settings()
    if not config.mail_to_files:
        abort(404, "The outbox page exists only when pbem saves mail to files (no SMTP_URL).")
    return render_template(
        "pages/outbox.html", mails=mail.saved_mails(config.outbox_dir), folder=config.outbox_dir
    )
