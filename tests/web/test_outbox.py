"""The /outbox page of the embedded default."""

from __future__ import annotations

from pathlib import Path

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
