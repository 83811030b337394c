"""The Nu HTML checker finds no error on any page (tests/browser/every_page.py), as served, nor in
the HTML of the emails its games sent."""

from __future__ import annotations

from tests.browser.conftest import Server
from tests.browser.every_page import every_page
from tests.support import nu
from tests.test_mail_html_valid import html_part


def test_every_page_is_valid_html(server: Server) -> None:
    nu.require_checker()
    client = server.app.test_client()
    documents = {}
    for page in every_page(server):
        response = client.get(page.path)
        assert response.status_code == page.status, (page.name, response.status_code)
        documents[f"{page.name} ({page.path[:40]})"] = response.get_data(as_text=True)
    found = nu.errors(documents)
    assert not found, "\n".join(found)


def test_every_email_of_real_games_is_valid_html(server: Server) -> None:
    """The emails the pages' games sent: invitations, turns with each engine's board and hand."""
    nu.require_checker()
    every_page(server)
    documents = {path.name: html_part(path.read_bytes()) for path in server.outbox.glob("*.eml")}
    kinds = {name.rsplit("-", 1)[-1] for name in documents}
    assert {"invite.eml", "turn.eml"} <= kinds, kinds
    found = nu.errors(documents)
    assert not found, "\n".join(found)
