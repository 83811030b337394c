"""Where `pbem serve` is reached, recorded in the var dir.

Mail written by another command (`pbem new-game`, `mail-in`, `clock`, `digest`, `rotate-links`,
`sweep`) must link to the running server even where BASE_URL is not exported: `pbem serve`
records the base of its own links here, and `pbem.config` reads it when BASE_URL is unset.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

FILE_NAME = "base_url.json"
# Far more than any URL; a larger file is not ours, and is not read whole.
MOST_BYTES = 4096
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
DEFAULT_PORTS = {"http": 80, "https": 443}


def url_for(host: str, port: int) -> str:
    """The base URL of a server bound to `host`:`port`."""
    bare = host.strip("[]")
    return f"http://[{bare}]:{port}" if ":" in bare else f"http://{bare}:{port}"


def is_absolute_http(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in DEFAULT_PORTS and bool(parts.netloc)


def loopback_of(host: str) -> str:
    """The loopback address a server bound to `host` answers at, as a URL writes it; "" when it
    answers at none."""
    if host in (*WILDCARD_HOSTS, "localhost"):
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return ""
    if not address.is_loopback:
        return ""
    return f"[{address}]" if address.version == 6 else str(address)


def loopback_port(url: str) -> int | None:
    """The port `url` names when its host is this machine's loopback, else None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    if host != "localhost" and not host.endswith(".localhost"):
        try:
            if not ipaddress.ip_address(host).is_loopback:
                return None
        except ValueError:
            return None
    try:
        return parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:  # a port that is not a number: no server answers there anyway
        return None


def path_in(var_dir: Path) -> Path:
    return var_dir / FILE_NAME


def record(var_dir: Path, base_url: str) -> Path:
    """Write `base_url` as the address of the running server, atomically: a command reading at
    the same moment finds the old record or the new one, never half of one."""
    var_dir.mkdir(parents=True, exist_ok=True)
    target = path_in(var_dir)
    text = json.dumps({"base_url": base_url, "written_by": "pbem serve"}) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=f".{FILE_NAME}.", dir=var_dir)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        # Not a secret, and an MTA's pipe may run `pbem mail-in` as another user.
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


def recorded(var_dir: Path) -> str | None:
    """The base URL `pbem serve` last recorded in `var_dir`; None when there is none. A file
    that cannot be read or was not written by `pbem serve` is ignored with a warning."""
    path = path_in(var_dir)
    try:
        return _read(path)
    except FileNotFoundError:
        return None
    except _NotOurs as exc:
        log.warning(
            "pbem: ignoring %s: %s. Links use BASE_URL if it is set, else the default address; "
            "delete the file, or start `pbem serve` to write it again",
            path,
            exc,
        )
        return None


class _NotOurs(Exception):
    """The file is not a record `pbem serve` wrote, or cannot be read; the message says why."""


def _read(path: Path) -> str:
    try:
        with path.open("rb") as file:
            raw = file.read(MOST_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _NotOurs(f"it cannot be read ({exc.strerror or exc})") from exc
    if len(raw) > MOST_BYTES:
        raise _NotOurs(f"it is larger than {MOST_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise _NotOurs("it is not JSON") from exc
    url = data.get("base_url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not is_absolute_http(url.strip()):
        raise _NotOurs('it holds no "base_url" that is an absolute http(s) URL')
    return url.strip().rstrip("/")


def warnings(base_url: str, given: bool, host: str, port: int) -> list[str]:
    """Why links starting with `base_url` (`given` as BASE_URL, else made from `host`) cannot
    reach a server listening on `host`:`port`."""
    named = loopback_port(base_url) if given else None
    if named is not None and named != port:
        return [
            f"BASE_URL={base_url} names this machine on port {named}, but this server listens "
            f"on port {port}: the links in its mail lead nowhere. Set BASE_URL to "
            f"{url_for('127.0.0.1', port)}, or unset it"
        ]
    if not given and host in WILDCARD_HOSTS:
        return [
            f"links in mail start with {base_url}, which other machines cannot open; set "
            "BASE_URL to the address they reach this server at"
        ]
    return []
