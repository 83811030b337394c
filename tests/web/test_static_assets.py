"""Static files are named by their content's hash in every page and kept by browsers for a year;
their plain names and stale hashes still work, revalidated each time. An ES module's hash covers
the modules it imports, which it imports by their hashed names. Every page has an icon."""

from __future__ import annotations

import hashlib
import re
import struct
from pathlib import Path

import pytest
import pyvips
from flask.testing import FlaskClient

import pbem
from tests.web.flow import start, turn_link

STATIC = Path(pbem.__file__).resolve().parent / "static"
YEAR = "public, max-age=31536000, immutable"
FINGERPRINTED = re.compile(r"^/static/(?:games/[a-z0-9-]+/)?[\w-]+\.[0-9a-f]{10}\.(?:css|js|svg)$")


def static_urls(page: str) -> list[str]:
    return sorted(set(re.findall(r"""["'](/static/[^"'#]+)""", page)))


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:10]


def test_every_page_names_its_static_files_by_their_hash(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    pages = [client.get("/").text, client.get("/rules").text, client.get(turn_link(game)).text]
    urls = [url for page in pages for url in static_urls(page)]
    assert f"/static/base.{digest_of(STATIC / 'base.css')}.css" in urls
    assert any(url.startswith("/static/games/gorami/board.") for url in urls)
    for url in urls:
        assert FINGERPRINTED.match(url), url
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["Cache-Control"] == YEAR, url


@pytest.mark.parametrize("name", ["base.css", "kit.js", "favicon.svg"])
def test_a_plain_name_or_a_stale_hash_works_but_is_revalidated(
    client: FlaskClient, name: str
) -> None:
    stem, suffix = name.rsplit(".", 1)
    body = (STATIC / name).read_bytes()
    for url in (f"/static/{name}", f"/static/{stem}.0123456789.{suffix}"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.data == body, url
        control = response.headers["Cache-Control"]
        assert "no-cache" in control and "max-age=31536000" not in control, url
        assert "immutable" not in control, url
    current = client.get(f"/static/{stem}.{digest_of(STATIC / name)}.{suffix}")
    assert current.data == body and current.headers["Cache-Control"] == YEAR
    # A hash does not make a file that is not there.
    assert client.get(f"/static/nothing.0123456789.{suffix}").status_code == 404


def test_a_games_controller_with_a_stale_hash_is_revalidated(client: FlaskClient) -> None:
    stale = client.get("/static/games/gorami/board.0123456789.js")
    assert stale.status_code == 200 and "export default class" in stale.text
    assert "no-cache" in stale.headers["Cache-Control"]
    assert client.get("/static/games/nosuchgame/board.0123456789.js").status_code == 404


def test_a_compressed_static_file_answers_its_etag_with_304(client: FlaskClient) -> None:
    url = f"/static/pbem.{digest_of(STATIC / 'pbem.css')}.css"
    first = client.get(url, headers={"Accept-Encoding": "br"})
    assert first.headers["Content-Encoding"] == "br"
    again = client.get(
        url, headers={"Accept-Encoding": "br", "If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304
    assert again.headers["Cache-Control"] == YEAR


def test_modules_import_each_other_by_hashed_names_kept_for_a_year(client: FlaskClient) -> None:
    """play.js, under its hashed name, imports kit.js, inview.js and panzoom.js by theirs, and a
    game's controller imports the kit by its: every module the page loads is kept for a year and
    none is fetched by a plain name."""
    game = start(client, "gorami", board="16")
    page = client.get(turn_link(game)).text
    seen: set[str] = set()
    waiting = [u for u in static_urls(page) if u.endswith(".js")]
    assert any("/games/gorami/board." in u for u in waiting) and any("/play." in u for u in waiting)
    while waiting:
        url = waiting.pop()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code == 200 and response.headers["Cache-Control"] == YEAR, url
        for specifier in re.findall(r"""from\s*["'](\.{1,2}/[^"']+)["']""", response.text):
            assert re.search(r"\.[0-9a-f]{10}\.js$", specifier), (url, specifier)
            folder = url.rsplit("/", 1)[0]
            waiting.append(str(Path(folder, specifier)).replace("\\", "/"))
    names = {u.rsplit("/", 1)[1].split(".")[0] for u in seen}
    assert {"play", "kit", "inview", "panzoom", "board"} <= names, seen
    # Under its plain name a module is as written, importing plain names, revalidated.
    plain = client.get("/static/play.js")
    assert plain.data == (STATIC / "play.js").read_bytes()
    assert "no-cache" in plain.headers["Cache-Control"]


def test_a_new_kit_renames_the_modules_that_import_it(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem.web import assets

    before = client.get("/").text  # any page: the app is set up
    assert before
    with client.application.test_request_context():
        folder = client.application.blueprints["boardkit"].static_folder
        play = assets.module_digest(Path(folder, "play.js"), "play.js")
        real = assets.digest

        def kit_changed(resource: object) -> str | None:
            value = real(resource)  # type: ignore[arg-type]
            return "0000000000" if str(resource).endswith("/kit.js") else value

        monkeypatch.setattr(assets, "digest", kit_changed)
        assert assets.module_digest(Path(folder, "play.js"), "play.js") != play
        assert assets.module_digest(Path(folder, "base.css"), "base.css") == digest_of(
            STATIC / "base.css"
        )


def test_every_page_links_an_svg_icon(client: FlaskClient) -> None:
    page = client.get("/").text
    icon = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page)
    assert icon is not None
    response = client.get(icon[1])
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.text.lstrip().startswith("<svg")


def test_favicon_ico_is_an_icon(client: FlaskClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype == "image/x-icon"
    data = response.data
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind) == (0, 1) and count >= 2
    sizes = []
    for index in range(count):
        width, height, _, _, _, _, length, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * index
        )
        picture = pyvips.Image.new_from_buffer(data[offset : offset + length], "")
        assert (picture.width, picture.height) == (width, height)
        sizes.append(width)
    assert 16 in sizes and 32 in sizes
    assert "max-age=86400" in response.headers["Cache-Control"]
