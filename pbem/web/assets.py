"""Static files under names that carry their content's hash, cached by browsers for a year.

`url_for('boardkit.static', filename='base.css')` gives `/static/base.<hash>.css`: the hook
`fingerprint_url` rewrites every URL of `boardkit.static`, so the templates keep calling
url_for and nothing else builds these names. A game's controller and stylesheet get the same
(`/static/games/<name>/board.<hash>.js`, `pbem.web.board_scripts`). A file whose URL carries its
current hash is sent `Cache-Control: public, max-age=31536000, immutable`; the plain name or a
stale hash (a page cached before a deploy) still gets the file, revalidated by its ETag each time.

An ES module's relative imports (`./kit.js`, `../../kit.js`) are fingerprinted too: a module's
hash covers its own bytes and the hashes of the modules it imports, and under its fingerprinted
name it is sent with each relative import specifier rewritten to the imported module's
fingerprinted name. A new kit.js thus gives play.js, which imports it, a new name as well, and a
page never pairs a script kept for a year with another version of a module it imports. Under its
plain name a module is sent as written, importing plain names, all revalidated.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request, send_from_directory
from werkzeug.security import safe_join

# A year: as long as RFC 9111 lets a response stay fresh in practice.
YEAR = 365 * 24 * 3600
DIGEST_LENGTH = 10
STATIC_ENDPOINT = "boardkit.static"
_FINGERPRINTED = re.compile(
    rf"^(?P<stem>.+)\.(?P<digest>[0-9a-f]{{{DIGEST_LENGTH}}})(?P<suffix>\.[^./]+)?$"
)

# path -> ((mtime_ns, size), digest): a file's hash is computed again only when the file changes.
_digests: dict[str, tuple[tuple[int, int], str]] = {}


def digest(resource: Path | Traversable) -> str | None:
    """The first characters of the SHA-256 of the file's bytes; None when there is no such file."""
    if not resource.is_file():
        return None
    if not isinstance(resource, Path):
        # Inside a zip: no stat to key a cache on, and such a file never changes.
        return hashlib.sha256(resource.read_bytes()).hexdigest()[:DIGEST_LENGTH]
    stat = resource.stat()
    key, stamp = str(resource), (stat.st_mtime_ns, stat.st_size)
    cached = _digests.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    value = hashlib.sha256(resource.read_bytes()).hexdigest()[:DIGEST_LENGTH]
    _digests[key] = (stamp, value)
    return value


# `import … from "./x.js"`, `export … from "../x.js"`, `import "./x.js"`: relative specifiers only.
_RELATIVE_IMPORT = re.compile(r"""(\b(?:from|import)\s*)(["'])(\.{1,2}/[^"'\s]+\.js)\2""")


def module_digest(resource: Path | Traversable, url_path: str) -> str | None:
    """`digest` for most files; for an ES module (`url_path` ending .js, the path its URL has
    under /static/), a hash of its own digest and those of the static modules it imports."""
    if not url_path.endswith(".js"):
        return digest(resource)
    return _with_imports(resource, url_path, ())


def linked_module(resource: Path | Traversable, url_path: str) -> bytes:
    """The module's source with each relative import naming the imported module's current
    fingerprinted file (left as written when there is no such file)."""

    def link(match: re.Match[str]) -> str:
        specifier = match[3]
        target = _resolve(url_path, specifier)
        value = _static_module_digest(target, ()) if target is not None else None
        named = with_digest(specifier, value) if value is not None else specifier
        return f"{match[1]}{match[2]}{named}{match[2]}"

    text = resource.read_bytes().decode("utf-8")
    return _RELATIVE_IMPORT.sub(link, text).encode("utf-8")


def send_module(
    resource: Path | Traversable, url_path: str, carried: str | None, mimetype: str
) -> Response:
    """An ES module: linked and kept for a year under its current fingerprint, else as written
    and revalidated by its ETag (the module digest)."""
    current = module_digest(resource, url_path)
    fresh = current is not None and carried == current
    body = linked_module(resource, url_path) if fresh else resource.read_bytes()
    response = Response(body, mimetype=mimetype)
    response.headers["X-Content-Type-Options"] = "nosniff"
    if current is not None:
        response.set_etag(current + ("" if fresh else "-plain"))
    response.make_conditional(request)
    return cache(response, fresh=fresh)


def _imports(resource: Path | Traversable, url_path: str) -> list[tuple[str, str]]:
    """(specifier, static path) of each relative import that lands in the static folder."""
    found = []
    for match in _RELATIVE_IMPORT.finditer(resource.read_bytes().decode("utf-8")):
        target = _resolve(url_path, match[3])
        if target is not None:
            found.append((match[3], target))
    return found


def _resolve(url_path: str, specifier: str) -> str | None:
    """The static path `specifier` names from the module at `url_path` (both under /static/)."""
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(url_path), specifier))
    return None if joined.startswith("..") else joined


def _static_module_digest(path: str, seen: tuple[str, ...]) -> str | None:
    """The module digest of the static file at `path` (None when missing, or in an import
    cycle: `seen` are the modules importing it)."""
    folder = current_app.blueprints["boardkit"].static_folder
    found = _file(folder, path) if folder is not None and path not in seen else None
    return _with_imports(found, path, seen) if found is not None else None


def _with_imports(resource: Path | Traversable, path: str, seen: tuple[str, ...]) -> str | None:
    own = digest(resource)
    imported = [_static_module_digest(p, (*seen, path)) for _, p in _imports(resource, path)]
    if own is None or not imported:
        return own
    joined = ":".join([own, *(d or "-" for d in imported)])
    return hashlib.sha256(joined.encode()).hexdigest()[:DIGEST_LENGTH]


def with_digest(filename: str, value: str) -> str:
    """`folder/app.js` with `value` put before the suffix: `folder/app.<value>.js`."""
    folder, _, name = filename.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        stem, suffix = name, ""
    named = f"{stem}.{value}" + (f".{suffix}" if suffix else "")
    return f"{folder}/{named}" if folder else named


def split_digest(filename: str) -> tuple[str, str | None]:
    """The plain name and the hash a fingerprinted name carries; (filename, None) otherwise."""
    folder, _, name = filename.rpartition("/")
    match = _FINGERPRINTED.match(name)
    if match is None:
        return filename, None
    plain = match["stem"] + (match["suffix"] or "")
    return (f"{folder}/{plain}" if folder else plain), match["digest"]


def cache(response: Response, fresh: bool) -> Response:
    """A year, immutable, for a URL with the file's current hash; else revalidate each time."""
    control = response.cache_control
    # A 304 refreshes the headers a browser keeps: it must not undo the year.
    if fresh and response.status_code in (200, 304):
        control.no_cache = None
        control.public = True
        control.max_age = YEAR
        control.immutable = True
    else:
        control.max_age = None
        control.immutable = False
        control.no_cache = True
        response.expires = None
    return response


class FingerprintedStatic(Blueprint):
    """A blueprint whose static folder also answers fingerprinted names (see the module)."""

    def send_static_file(self, filename: str) -> Response:
        folder = str(self.static_folder)
        plain, carried = filename, None
        if _file(folder, filename) is None:
            plain, carried = split_digest(filename)
        module = _file(folder, plain) if plain.endswith(".js") else None
        if module is not None:
            return send_module(module, plain, carried, "text/javascript")
        response = send_from_directory(folder, plain, max_age=None)
        # A body in memory, not a stream, so compression may keep the ETag (pbem.web.compression).
        response.direct_passthrough = False
        response.make_sequence()
        found = _file(folder, plain) if carried is not None else None
        return cache(response, fresh=found is not None and digest(found) == carried)


def fingerprint_url(endpoint: str, values: dict[str, Any]) -> None:
    """Puts the file's hash in every URL built for the static folder (Flask's url_defaults)."""
    filename = values.get("filename")
    if endpoint != STATIC_ENDPOINT or not isinstance(filename, str):
        return
    folder = current_app.blueprints["boardkit"].static_folder
    found = _file(folder, filename) if folder is not None else None
    value = module_digest(found, filename) if found is not None else None
    if value is not None:
        values["filename"] = with_digest(filename, value)


def _file(folder: str, filename: str) -> Path | None:
    """The file `filename` inside `folder`, never outside it; None when there is none."""
    joined = safe_join(folder, filename)
    return Path(joined) if joined is not None and Path(joined).is_file() else None


def register(app: Flask) -> None:
    app.url_defaults(fingerprint_url)
