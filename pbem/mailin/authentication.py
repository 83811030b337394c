"""Whether a reply's From is vouched for by the Authentication-Results (RFC 8601) that the MTA in
front of `pbem mail-in` adds, when `PBEM_MAIL_AUTHSERV_ID` names that MTA.

Only headers whose authserv-id is that name count: anyone can write an Authentication-Results
header into the mail they send, and RFC 8601 §5 has the receiving MTA remove those that claim
its own name. A reply is refused when a trusted header says DMARC failed for its From domain, or
when none shows an aligned pass: DKIM whose signing domain (`header.d`) or SPF whose envelope
sender (`smtp.mailfrom`) is aligned with the From domain, or DMARC passed for it (the MTA's
DMARC check found such a pass, with the public suffix list we do not carry).

Alignment is DMARC's relaxed mode approximated without the public suffix list: two domains are
aligned when they are equal or one is a subdomain of the other. That is looser than DMARC only
where the shorter one is a public suffix (`co.uk`, `github.io`), which holds nobody's mailbox and
signs for nobody; it is stricter for sibling subdomains (`a.example.org` and `b.example.org`),
which a DMARC pass still lets through.

A message with no trusted header at all (the setting names another host, or the MTA added none
to this message) is not checked: the caller logs that and goes on as without the setting.
Delivery reports to a `bounce+` address are not weighed here: their HMAC token is their proof.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import authres
import authres.dmarc

# Every header's authserv-id is looked at (an MTA may add its own above or below what arrived),
# but only so many of ours are read, and none longer than this: the MTA adds one or two of a
# few hundred characters, and the parser's time grows faster than the length.
MAX_TRUSTED = 16
MAX_LENGTH = 16 * 1024

_FEATURES = authres.FeatureContext(authres.dmarc)


@dataclass(frozen=True)
class Verdict:
    """`checked`: a trusted header was there; `refusal`: why the reply is refused ("" when it
    passes or was not checked)."""

    checked: bool
    refusal: str = ""


@dataclass(frozen=True)
class _Result:
    method: str
    result: str
    properties: dict[str, str]  # "ptype.property" (lower case) -> value


def check(authserv_id: str, headers: Sequence[str], sender: str) -> Verdict:
    """The verdict on a reply from `sender` (its From address) carrying these
    Authentication-Results values (raw, topmost first)."""
    trusted = [value for value in headers if _is_ours(value, authserv_id)]
    if not trusted:
        return Verdict(checked=False)
    if len(trusted) > MAX_TRUSTED:
        count = len(trusted)
        return Verdict(True, f"it has {count} Authentication-Results headers of {authserv_id}")
    results: list[_Result] = []
    for value in trusted:
        parsed = _parse(value)
        if parsed is None:
            # Ours by its name but unreadable: a forger's, if the MTA let one through, so the
            # reply is not taken on its word.
            return Verdict(True, f"an Authentication-Results header of {authserv_id} is unreadable")
        results.extend(parsed)
    domain = _domain(sender.rpartition("@")[2])
    if not domain:
        return Verdict(True, "its From has no domain")
    for found in _of(results, "dmarc", "fail"):
        checked_for = _domain(found.properties.get("header.from", domain))
        if checked_for == domain:
            return Verdict(True, f"DMARC fails for {domain}, its From domain")
    if any(_domain(r.properties.get("header.from", "")) == domain for r in _of(results, "dmarc")):
        return Verdict(True)
    for found in _of(results, "dkim"):
        signer = found.properties.get("header.d") or found.properties.get("header.i", "")
        if aligned(_domain(signer.rpartition("@")[2]), domain):
            return Verdict(True)
    for found in _of(results, "spf"):
        mailfrom = found.properties.get("smtp.mailfrom", "")
        if aligned(_domain(mailfrom.rpartition("@")[2]), domain):
            return Verdict(True)
    return Verdict(True, f"neither DKIM nor SPF passes for {domain}, its From domain")


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment, approximated: equal, or one a subdomain of the other (a single label,
    a top-level domain, aligns with nothing)."""
    if not domain or not from_domain or "." not in domain or "." not in from_domain:
        return False
    shorter, longer = sorted((domain, from_domain), key=len)
    return longer == shorter or longer.endswith("." + shorter)


def _of(results: Iterable[_Result], method: str, result: str = "pass") -> list[_Result]:
    return [r for r in results if r.method == method and r.result == result]


def _domain(text: str) -> str:
    """A domain as compared: lower case, no trailing dot, internationalised names as A-labels."""
    domain = text.strip().strip("<>").rstrip(".").lower()
    if domain.isascii():
        return domain
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def _is_ours(value: str, authserv_id: str) -> bool:
    """Whether the header's authserv-id, its first word after any comments, is ours."""
    return _first_word(value).casefold() == authserv_id.casefold()


def _first_word(value: str) -> str:
    index, depth = 0, 0
    while index < len(value):
        char = value[index]
        if char == "\\" and depth:
            index += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif not depth and not char.isspace():
            break
        index += 1
    rest = value[index:]
    if rest.startswith('"'):  # a quoted-string authserv-id: compared without its quotes
        return rest[1:].partition('"')[0]
    end = len(rest)
    for delimiter in (";", "(", " ", "\t", "\r", "\n"):
        found = rest.find(delimiter)
        if found != -1:
            end = min(end, found)
    return rest[:end]


def _parse(value: str) -> list[_Result] | None:
    """The results of one header value, or None when it cannot be read."""
    if len(value) > MAX_LENGTH:
        return None
    try:
        header = _FEATURES.parse_value(" ".join(value.split()))
        return [
            _Result(
                str(result.method).lower(),
                str(result.result).lower(),
                {f"{prop.type}.{prop.name}".lower(): str(prop.value) for prop in result.properties},
            )
            for result in header.results
        ]
    except Exception:  # the parser's own errors, and RecursionError on nested comments
        return None
