"""A game's name has one limit, `pbem.domain.titles.MAX_LENGTH`, on every path: the home page's
form and the games page's (their `maxlength`, and the refusal, whatever the length typed), the
OpenAPI schema's `maxLength` and `pbem new-game --help` (issue 31: 60 on one path, 100 on
another)."""

from __future__ import annotations

import json
import re

import pytest
from flask.testing import FlaskClient

from pbem import cli, links
from pbem.domain.titles import MAX_LENGTH
from pbem.extensions import settings
from pbem.resources import static_dir
from tests.web.flow import EMAILS, confirmed


@pytest.mark.parametrize("length", [MAX_LENGTH + 1, 101, 500])
def test_the_form_refuses_a_long_name_with_the_one_limit(client: FlaskClient, length: int) -> None:
    response = client.post(
        "/", data={"game": "countdown", "title": "x" * length, "emails": "\n".join(EMAILS)}
    )
    assert response.status_code == 400
    assert f"at most {MAX_LENGTH} characters; this one has {length}" in response.text
    # The form comes back with what was typed.
    assert 'id="new-game"' in response.text


def test_both_forms_offer_the_one_limit(client: FlaskClient) -> None:
    home = client.get("/?game=countdown").text
    assert f'name="title" type="text" maxlength="{MAX_LENGTH}"' in home
    assert f"Up to {MAX_LENGTH} characters" in home
    organiser = confirmed(client).organiser
    assert organiser is not None
    me = links.player_url(settings(), organiser.id, organiser.nonce).removeprefix(
        "http://pbem.test"
    )
    mine = client.get(f"{me}/new?game=countdown").text
    assert f'name="title" type="text" maxlength="{MAX_LENGTH}"' in mine


def test_the_schema_and_the_command_say_the_same_limit(capsys: pytest.CaptureFixture[str]) -> None:
    spec = json.loads((static_dir() / "openapi.json").read_text())
    names = [
        prop["maxLength"]
        for schema in spec["components"]["schemas"].values()
        for key, prop in schema.get("properties", {}).items()
        if key == "name" and "maxLength" in prop and "organiser" in prop.get("description", "")
    ]
    assert names and set(names) == {MAX_LENGTH}
    with pytest.raises(SystemExit):
        cli.main(["new-game", "--help"])
    assert re.search(rf"1 to {MAX_LENGTH}\s+characters", capsys.readouterr().out)
