"""DKIM signatures (RFC 6376) on outgoing mail, with dkimpy, when PBEM_DKIM_KEY_FILE is set.

The key is an RSA private key in PEM (PKCS#1 or PKCS#8), e.g. `openssl genrsa -out dkim.pem 2048`;
its public half is published as the TXT record `<PBEM_DKIM_SELECTOR>._domainkey.<MAIL_FROM's
domain>`: `v=DKIM1; k=rsa; p=<base64 of the DER public key>`. Signed relaxed/relaxed (mail
servers rewrap headers and trailing spaces) over the headers a reader relies on, the one-click
unsubscribe pair among them (RFC 8058 asks for both to be signed). A header listed but absent is
signed as absent, so nobody on the way can add one.

dkimpy writes the signature: the canonical forms, the body hash, the tags, the header hash. Two
steps are our own (`_DatedDKIM.gen_header`, otherwise dkimpy's): the t= tag is the row's creation
time, not the clock, so a message rebuilt from its row is signed with the same bytes (RSA
PKCS#1 v1.5 signatures are deterministic); and the RSA operation is OpenSSL's (the `cryptography`
package) rather than dkimpy's pure-Python one, which took 5.7 ms of CPU per message with a
2048-bit key against 0.2 ms (bench/RESULTS.md).
"""

from __future__ import annotations

import base64
import os
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import dkim
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils

SIGNED_HEADERS = (
    "From",
    "To",
    "Subject",
    "Date",
    "Message-ID",
    "In-Reply-To",
    "References",
    "Reply-To",
    "List-Unsubscribe",
    "List-Unsubscribe-Post",
    "Auto-Submitted",
    "MIME-Version",
    "Content-Type",
)
_INCLUDE = [name.lower().encode("ascii") for name in SIGNED_HEADERS]


class DkimKeyError(RuntimeError):
    """The configured key cannot sign (unreadable, not an RSA private key): a settings problem,
    so sending is tried again later rather than the message given up."""


class _DatedDKIM(dkim.DKIM):  # type: ignore[misc]
    """dkimpy's signer, dated by the caller and signing with OpenSSL."""

    def __init__(self, message: bytes, timestamp: int, key: rsa.RSAPrivateKey) -> None:
        super().__init__(message)
        self.timestamp = str(timestamp).encode("ascii")
        self.key = key

    def gen_header(
        self,
        fields: list[tuple[bytes, bytes]],
        include_headers: tuple[bytes, ...],
        canon_policy: Any,
        header_name: bytes,
        pk: Any,
        standardize: bool = False,
    ) -> bytes:
        """dkimpy's `DKIM.gen_header` (1.1) for RSA-SHA256, but for t= and the RSA step."""
        fields = [(tag, self.timestamp if tag == b"t" else value) for tag, value in fields]
        value = b"; ".join(b"=".join(field) for field in fields)
        value = dkim.fold(value, namelen=len(header_name), linesep=b"\r\n")
        value = dkim.RE_BTAG.sub(b"\\1", value)
        hasher = self.hasher()
        headers = canon_policy.canonicalize_headers(self.headers)
        self.signed_headers = dkim.hash_headers(
            hasher, canon_policy, headers, include_headers, (header_name, b" " + value), {}
        )
        signature = self.key.sign(
            hasher.digest(), padding.PKCS1v15(), utils.Prehashed(hashes.SHA256())
        )
        signed = [(tag, base64.b64encode(signature) if tag == b"b" else v) for tag, v in fields]
        value = b"; ".join(b"=".join(field) for field in signed) + self.linesep
        folded: bytes = dkim.fold(value, namelen=len(header_name), linesep=self.linesep)
        return folded


@lru_cache(maxsize=4)
def _read_key(path: Path, changed: int) -> tuple[bytes, rsa.RSAPrivateKey]:
    # Keyed by the file's modification time too: a replaced key is used from its next message.
    data = path.read_bytes()
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise DkimKeyError(f"the DKIM key {path} is not a PEM private key: {exc}") from exc
    if not isinstance(key, rsa.RSAPrivateKey):
        raise DkimKeyError(f"the DKIM key {path} is not an RSA key")
    return data, key


def signature(message: bytes, key_file: Path, selector: str, domain: str, at: datetime) -> bytes:
    """The `DKIM-Signature:` header line (CRLF-terminated) to put on top of `message`, dated
    `at` (naive datetimes are UTC, as pbem stores them)."""
    try:
        pem, key = _read_key(key_file, os.stat(key_file).st_mtime_ns)
    except OSError as exc:
        raise DkimKeyError(f"the DKIM key {key_file} cannot be read: {exc}") from exc
    moment = at.replace(tzinfo=UTC) if at.tzinfo is None else at
    try:
        header: bytes = _DatedDKIM(message, int(moment.timestamp()), key).sign(
            selector.encode("ascii"),
            domain.encode("ascii"),
            pem,
            canonicalize=(b"relaxed", b"relaxed"),
            include_headers=_INCLUDE,
        )
    except dkim.DKIMException as exc:
        raise DkimKeyError(f"the DKIM key {key_file} cannot sign: {exc}") from exc
    return header
