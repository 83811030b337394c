"""Addresses whose players were erased at their request (`pbem.ops.player_data`): kept only as
a keyed hash, so that nobody invites them again unless their owner asks."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

from sqlalchemy import select

from pbem.config import Settings
from pbem.extensions import db
from pbem.models import ErasedAddress


def address_digest(config: Settings, address: str) -> str:
    """No one can read the address back, and no one without the service's key can test a
    guess against it."""
    key = config.signing_key.encode()
    return hmac.new(key, b"erased:" + address.encode(), hashlib.sha256).hexdigest()


def erased(config: Settings, addresses: Iterable[str]) -> set[str]:
    """Those of these addresses whose players were erased."""
    digests = {address_digest(config, a): a for a in addresses}
    if not digests:
        return set()
    found = db.session.execute(
        select(ErasedAddress.digest).where(ErasedAddress.digest.in_(digests))
    ).scalars()
    return {digests[d] for d in found}
