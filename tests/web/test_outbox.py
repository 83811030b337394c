"""The /outbox page of the embedded default."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.conftest import make_app
from tests.web.flow import create


def test_the_outbox_lists_saved_mail_with_clickable_links(client: FlaskClient) -> None:
    assert "No mail yet" in client.get("/outbox").text
    create(client)
    page = client.get("/outbox").text
    assert page.count('<article class="mail">') == 1  # the organiser's confirmation
    assert '<a href="http://pbem.test/invite/' in page


def test_no_outbox_page_with_real_mail(tmp_path: Path) -> None:
    app = make_app(tmp_path, SMTP_URL="smtp://127.0.0.1:2525")
    assert app.test_client().get("/outbox").status_code == 404


REMOTE = "203.0.113.5"


@pytest.mark.parametrize("peer", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
def test_the_outbox_answers_this_machine(client: FlaskClient, peer: str) -> None:
    assert client.get("/outbox", environ_base={"REMOTE_ADDR": peer}).status_code == 200


@pytest.mark.parametrize("peer", [REMOTE, "10.0.0.2", "2001:db8::5", "::ffff:203.0.113.5", ""])
def test_the_outbox_refuses_any_other_client(client: FlaskClient, peer: str) -> None:
    create(client)
    response = client.get("/outbox", environ_base={"REMOTE_ADDR": peer})
    assert response.status_code == 403
    assert "/invite/" not in response.text and "shown only to this machine" in response.text
    assert "http://127.0.0.1:80/outbox" in response.text  # where to open it instead


@pytest.mark.parametrize("proxies", [None, "1", "2"])
def test_a_forwarded_for_header_never_makes_a_client_local(
    tmp_path: Path, proxies: str | None
) -> None:
    client = make_app(tmp_path, PBEM_TRUSTED_PROXIES=proxies).test_client()
    forged = {"X-Forwarded-For": "127.0.0.1, 127.0.0.1"}
    # A remote client claiming loopback, whether or not proxies are trusted.
    remote = {"REMOTE_ADDR": REMOTE}
    assert client.get("/outbox", headers=forged, environ_base=remote).status_code == 403
    # A proxy on this machine passing on a client from anywhere: its peer is loopback.
    for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
        passed_on = {header: "127.0.0.1" if header != "Forwarded" else "for=127.0.0.1"}
        assert client.get("/outbox", headers=passed_on).status_code == 403, header
