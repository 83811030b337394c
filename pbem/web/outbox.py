"""`/outbox`: the mail saved by the embedded default, newest first, with the links clickable.

Only in development and test, and only without SMTP_URL: the page shows every link pbem mailed,
so anywhere else it would hand any visitor every seat. Even there it answers only this machine
(a loopback peer, nothing forwarded): a development server bound to every interface, or put
behind a proxy, must not hand its seats to whoever finds it.
"""

from __future__ import annotations

import ipaddress

from flask import Blueprint, Response, abort, make_response, render_template, request

from pbem import mail
from pbem.extensions import settings

bp = Blueprint("outbox", __name__)

ENVIRONMENTS = ("development", "test")
# A request that passed through a proxy: its peer is the proxy, loopback when the proxy runs on
# this machine, whoever the client is.
FORWARDING_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Real-IP")
NOT_HERE = (
    "The outbox lists every link pbem has mailed, so it is shown only to this machine, not "
    "through a network or a proxy. Open http://127.0.0.1:{port}/outbox on the machine pbem runs "
    "on (from another one, through an SSH tunnel: ssh -L {port}:127.0.0.1:{port} that-machine)."
)


@bp.get("/outbox")
def index() -> Response:
    config = settings()
    if config.env not in ENVIRONMENTS or not config.mail_to_files:
        abort(404)
    if not from_this_machine():
        # 403, not 404: the page is documented, and whoever reached it needs to know the way in.
        abort(403, description=NOT_HERE.format(port=request.environ.get("SERVER_PORT") or 5000))
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


def from_this_machine() -> bool:
    """Whether the request's peer is loopback and no proxy passed it on.

    The peer is the connecting address before `PBEM_TRUSTED_PROXIES`' ProxyFix rewrote it: what
    X-Forwarded-For says is the client's word, or a proxy's about a client elsewhere.
    """
    if any(name in request.headers for name in FORWARDING_HEADERS):
        return False
    original = request.environ.get("werkzeug.proxy_fix.orig") or {}
    peer = original.get("REMOTE_ADDR", request.environ.get("REMOTE_ADDR"))
    try:
        address = ipaddress.ip_address(peer or "")
    except ValueError:
        return False  # a Unix socket or nothing: whatever stands in front of it is unknown
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
