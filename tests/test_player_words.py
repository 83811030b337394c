"""The Python code that writes what players read says nothing outside gettext (issue 34, point 5;
tests/test_i18n.py scans the templates and rules pages the same way).

Every string literal with words in it ("two words, or more") in the packages that render pages,
letters and answers is looked at, except where it cannot reach a player: docstrings, the
arguments of gettext's functions, log calls, the errors of programming mistakes and operators'
commands (ValueError and its kin), regular expressions, and markup or header values without
prose. What is left must be in OUTSIDE, file by file, with the reason it is not for players, or
marked there as pending: then the issue is not done, and the list says what remains. A literal
added anywhere else fails here, as does an entry whose literal is gone. The engines' words (move
sentences, outcomes, refusals) are point 2 of the issue: they become message keys, not gettext
calls, since an engine is pure."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCANNED = ("pbem/web", "pbem/domain", "pbem/mailin", "pbem/mail")
# Words as a reader would see them: two words of two letters or more, side by side.
PROSE = re.compile(r"[A-Za-z]{2,}[,:;]? [A-Za-z]{2,}")
# What markup, placeholders and header parameters hold is no prose.
NOT_SHOWN = re.compile(r"<[^>]*>|\{[^}]*\}|%\(\w+\)[sd]")
GETTEXT = {"gettext", "ngettext", "pgettext", "lazy_gettext", "lazy_ngettext", "N_", "_", "Message"}
LOG_CALLS = {"debug", "info", "warning", "error", "exception", "critical", "log", "bind"}
LOGGERS = {"log", "logger", "logging", "logs"}
# Raised for a programming mistake or an operator's command: never a page or a letter.
OPERATOR_ERRORS = {
    "ValueError",
    "TypeError",
    "RuntimeError",
    "LookupError",
    "KeyError",
    "AssertionError",
    "NotImplementedError",
}

PENDING_POINT_2 = "pending (issue 34, point 2): said in English until it is a message key"
# Each file's literals that no player reads, and why; or what is pending.
OUTSIDE: dict[str, tuple[str, frozenset[str]]] = {
    "pbem/web/headers.py": ("an X-Robots-Tag header's value", frozenset({"noindex, nofollow"})),
    "pbem/web/health.py": (
        "answers to an operator's probes and metrics scraper",
        frozenset(
            {
                "not ready",
                "The figures need Authorization: Bearer and the token in PBEM_METRICS_TOKEN.",
                "This is not the token in PBEM_METRICS_TOKEN: check the scraper's.",
            }
        ),
    ),
    "pbem/web/limits.py": (
        "which part of a request a value came in: keys that choose a translated message",
        frozenset({"query argument", "JSON value", "JSON key"}),
    ),
    "pbem/web/outbox.py": (
        "the development outbox, answered to this machine only",
        frozenset(
            {
                "The outbox lists every link pbem has mailed, so it is shown only to this "
                "machine, not through a network or a proxy. Open http://127.0.0.1:{port}/outbox "
                "on the machine pbem runs on (from another one, through an SSH tunnel: ssh -L "
                "{port}:127.0.0.1:{port} that-machine)."
            }
        ),
    ),
    "pbem/web/mail_settings.py": (
        "an X-Robots-Tag header's value",
        frozenset({"noindex, nofollow"}),
    ),
    "pbem/domain/bot_turns.py": (
        "what the bots' task reports to the logs",
        frozenset(
            {
                "nothing to do",
                "a move for this turn is stored already",
                "its move was refused: ",
                "the draw offer was gone: ",
            }
        ),
    ),
    "pbem/domain/clock_task.py": (
        "what the clock's task reports to the logs",
        frozenset(
            {
                "another clock run was in progress; nothing done",
                " deadlines extended by ",
                "s of downtime",
            }
        ),
    ),
    "pbem/domain/digest.py": (
        "what the digest's task reports to the logs",
        frozenset({" with no game waiting"}),
    ),
    "pbem/domain/clocks.py": (
        "which value an operator's clock was wrong in (pbem admin, the CLI)",
        frozenset({"The time to add", "The gap"}),
    ),
    "pbem/domain/rotation.py": (
        "errors of `pbem admin rotate-links`",
        frozenset({" has no seat ", "No player has the address "}),
    ),
    "pbem/domain/bounces.py": (
        f"a delivery failure, stored with the mail server's own answer: {PENDING_POINT_2}",
        frozenset({"[their address]", "the mail server refused it"}),
    ),
    "pbem/domain/delivery.py": (
        f"a delivery failure, stored with the mail server's own answer: {PENDING_POINT_2}",
        frozenset(
            {
                "no mail server took it after ",
                " tries (the last answer: ",
                "pbem could not send it (",
                "their mail server refused the address: ",
                "the mail server refused the message: ",
                "the mail server cannot take this message: ",
                "the mail server answered ",
                "the mail server could not be reached (",
                "the message could not be written (",
            }
        ),
    ),
    "pbem/mail/sending.py": (
        f"a delivery failure, stored: {PENDING_POINT_2}",
        frozenset({"the mail server does not accept internationalised addresses (SMTPUTF8)"}),
    ),
    "pbem/mail/building.py": (
        "the picture's inline style; why a message could not be built, stored for the operator; "
        f"and the picture's alt text when none was stored ({PENDING_POINT_2})",
        frozenset(
            {
                "display:block;width:100%;max-width:{width}px;height:auto;border:0;margin:12px 0",
                "unsubscribe link",
                " holds a line break or control character",
                "the unsubscribe link is not a plain http(s) URL",
                "The board",
                "the address has no @-sign between a name and a domain",
                "the address holds an invisible or direction-changing character (",
                "the message could not be written (",
                "the domain of the address is not a valid name (",
            }
        ),
    ),
    "pbem/mailin/dsn.py": (
        "a bounce's diagnostic when the report gives none, kept for the operator",
        frozenset({"the delivery failed", "delivery status "}),
    ),
    "pbem/mailin/listener.py": (
        "SMTP answers to the sending mail server",
        frozenset(
            {
                "550 5.1.1 Not a pbem reply or bounce address",
                "451 4.3.0 pbem cannot reach its database; try again later",
                "554 5.3.0 pbem could not handle this message because of an error on its side",
            }
        ),
    ),
    "pbem/mailin/authentication.py": (
        "why a reply's sender was not trusted, for the logs",
        frozenset(
            {
                "its From has no domain",
                "neither DKIM nor SPF passes for ",
                ", its From domain",
                "it has ",
                " Authentication-Results headers of ",
                "an Authentication-Results header of ",
                " is unreadable",
                "DMARC fails for ",
            }
        ),
    ),
    "pbem/mailin/handle.py": (
        "how each reply was handled, for the logs (its player gets a translated letter)",
        frozenset(
            {
                "the envelope sender is empty (a bounce)",
                "sent by pbem itself",
                "no genuine reply address (none, forged or withdrawn)",
                "the seat is gone",
                ", not the seat's player",
                "From not authenticated by ",
                "a bounce address with a forged token",
                " legal moves",
                " line(s) after the turn ended not played",
                "mail to the bounce address of outbox ",
                ", no report",
                "(no status)",
                ", nothing recorded",
                "; then refused: ",
            }
        ),
    ),
    "pbem/mailin/parse.py": (
        "the words a reply may say (read, never written), and why an auto-reply was ignored, "
        "for the logs",
        frozenset(
            {
                "je abandonne",
                "ik geef op",
                "geef op",
                "jeg opgiver",
                "giv op",
                "jeg giver op",
                "legal moves",
                "list moves",
                "coups possibles",
                "coups legaux",
                "liste des coups",
                "mogelijke zetten",
                "legale zetten",
                "geldige zetten",
                "mulige træk",
                "lovlige træk",
                "gyldige træk",
                "the headers could not be read",
                "a delivery report",
                "pbem's own message, come back",
                "its subject says it is automatic",
                "sent by ",
                " is set",
                "of some kind",
            }
        ),
    ),
}


def _called(call: ast.Call) -> tuple[str, str]:
    """(the function's name, the name it is an attribute of, if any)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id, ""
    if isinstance(func, ast.Attribute):
        owner = func.value.id if isinstance(func.value, ast.Name) else ""
        return func.attr, owner
    return "", ""


def _exempt(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the literal `node` sits where no player reads it."""
    if isinstance(parents.get(node), ast.Expr):
        return True  # a docstring
    current = node
    while current in parents:
        parent = parents[current]
        if isinstance(parent, ast.Call):
            name, owner = _called(parent)
            if name in GETTEXT or name in OPERATOR_ERRORS or owner == "re":
                return True
            if name in LOG_CALLS and owner in LOGGERS:
                return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False
        current = parent
    return False


def shown_literals(source: str) -> list[str]:
    """The literals with words in `source` that might reach a player."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        visible = NOT_SHOWN.sub(" ", node.value)
        if "=" in visible or not PROSE.search(visible) or _exempt(node, parents):
            continue
        found.append(node.value)
    return found


def test_the_scan_finds_words_and_skips_what_no_player_reads() -> None:
    source = '''
"""A docstring says things."""
import re
GREETING = "Hello there"
def f(x):
    log.info("the logs say things")
    gettext("a message in the catalog")
    re.compile("pattern with words")
    if x:
        raise ValueError("an operator error")
    return ("<span class='a b'>{word}</span>", 'text/plain; charset="utf-8"', "Your move")
'''
    assert shown_literals(source) == ["Hello there", "Your move"]


def test_no_player_reads_text_outside_gettext() -> None:
    unexpected = []
    seen: dict[str, set[str]] = {}
    for folder in SCANNED:
        for path in sorted((REPO / folder).rglob("*.py")):
            name = path.relative_to(REPO).as_posix()
            known = OUTSIDE.get(name, ("", frozenset()))[1]
            for literal in shown_literals(path.read_text(encoding="utf-8")):
                seen.setdefault(name, set()).add(literal)
                if literal not in known:
                    unexpected.append(f"{name}: {literal[:100]!r}")
    assert not unexpected, "text outside gettext:\n" + "\n".join(unexpected)
    gone = [
        f"{name}: {literal!r}"
        for name, (_, literals) in OUTSIDE.items()
        for literal in literals
        if literal not in seen.get(name, set())
    ]
    assert not gone, "no longer in the code: take these off OUTSIDE:\n" + "\n".join(gone)
