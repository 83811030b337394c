"""The operator's commands: `pbem backup`, `pbem restore` and `pbem admin …`, each of the
admin tools answering in words or, with `--json`, as JSON.

pbem backup FILE                        the whole database into FILE, while it runs
pbem restore FILE [--replace]           FILE into an empty database; every link renewed
pbem admin mail failed [--limit N]      the emails given up on, and why
pbem admin mail resend ID               send one email again, as the same message
pbem admin games stuck [--older-than S] work the workers, beat or the queue left undone
                                        (exits 1 when anything is stuck, for a cron job)
pbem admin stats                        the service in figures
pbem admin player export EMAIL          everything stored about a player, as JSON
pbem admin player erase EMAIL --yes     erase a player (their games resigned or cancelled)
pbem admin player unblock EMAIL         an erased player asks to be invited again
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from flask import Flask

from pbem.ops import backups, failed_mail, player_data, stats, stuck

# How old undone work must be to count as stuck, by default: five sweeps of the default period.
STUCK_SECONDS = 150


def add_commands(commands: Any, app_factory: Callable[[], Flask]) -> None:
    """Add `backup`, `restore`, and `admin` with its subcommands, to the `pbem` command's
    subparsers."""
    _backup_commands(commands, app_factory)
    admin = commands.add_parser(
        "admin",
        help="the operator's tools: failed mail, stuck games, figures, players' data",
        description="The operator's tools. Each answers in words, or as JSON with --json.",
    )
    areas = admin.add_subparsers(dest="area", required=True, metavar="AREA")

    mail = areas.add_parser("mail", help="mail that did not go").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    failed = mail.add_parser("failed", help="the emails given up on, newest first, and why")
    failed.add_argument("--limit", type=_positive, default=100, help="at most this many (100)")
    _json_option(failed)
    failed.set_defaults(run=_with_app(app_factory, _mail_failed))
    resend = mail.add_parser(
        "resend",
        help="send one email again, as the same message (same Message-ID)",
        description="Make the email due again and queue it: a failed one gets a fresh series "
        "of attempts, a sent one goes again (while its text is kept, PBEM_MAIL_KEEP_DAYS).",
    )
    resend.add_argument("id", type=_positive, metavar="ID", help="its id, as `mail failed` says")
    _json_option(resend)
    resend.set_defaults(run=_with_app(app_factory, _mail_resend))

    games = areas.add_parser("games", help="games and their moves").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    stuck_games = games.add_parser(
        "stuck",
        help="moves not applied, turns past their deadline, bots' turns and emails overdue",
        description="Work the workers, beat or the queue left undone, each with what to look "
        "at. Exits 1 when anything is stuck, 0 when nothing is.",
    )
    stuck_games.add_argument(
        "--older-than",
        type=_positive,
        default=STUCK_SECONDS,
        metavar="SECONDS",
        help=f"overdue by more than this (default {STUCK_SECONDS})",
    )
    _json_option(stuck_games)
    stuck_games.set_defaults(run=_with_app(app_factory, _games_stuck))

    figures = areas.add_parser("stats", help="games, players, moves and mail in figures")
    _json_option(figures)
    figures.set_defaults(run=_with_app(app_factory, _stats))
    _player_commands(areas, app_factory)


def _player_commands(areas: Any, app_factory: Callable[[], Flask]) -> None:
    player = areas.add_parser("player", help="a player's data: export, erase").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    export = player.add_parser(
        "export",
        help="everything stored about a player, as JSON (their games as their seat sees them)",
    )
    export.add_argument("email", metavar="EMAIL")
    export.add_argument(
        "--output", metavar="FILE", help="write it to FILE (default: standard output)"
    )
    export.set_defaults(run=_with_app(app_factory, _player_export))
    erase = player.add_parser(
        "erase",
        help="erase a player: running games resigned, unstarted ones cancelled, address and "
        "name removed everywhere, links withdrawn",
    )
    erase.add_argument("email", metavar="EMAIL")
    erase.add_argument("--yes", action="store_true", help="really erase (it cannot be undone)")
    _json_option(erase)
    erase.set_defaults(run=_with_app(app_factory, _player_erase))
    unblock = player.add_parser(
        "unblock",
        help="an erased player (or one who asked never to be emailed) asks to be invited again",
    )
    unblock.add_argument("email", metavar="EMAIL")
    unblock.set_defaults(run=_with_app(app_factory, _player_unblock))


def _player_export(app: Flask, args: argparse.Namespace) -> int:
    from pbem.domain.errors import ServiceError
    from pbem.models import utcnow

    try:
        data = player_data.export(app.config["PBEM"], args.email, utcnow())
    except ServiceError as exc:
        print(f"pbem admin player export: {exc.message}", file=sys.stderr)
        return 2
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
        print(f"written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _player_erase(app: Flask, args: argparse.Namespace) -> int:
    from pbem import dispatch
    from pbem.domain import bot_turns
    from pbem.domain.errors import ServiceError
    from pbem.models import utcnow

    if not args.yes:
        print(
            f"pbem admin player erase: this cannot be undone; give --yes to erase {args.email}",
            file=sys.stderr,
        )
        return 2
    try:
        done = player_data.erase(app.config["PBEM"], args.email, utcnow())
    except ServiceError as exc:
        print(f"pbem admin player erase: {exc.message}", file=sys.stderr)
        return 2
    dispatch.send_emails_later(done.outbox_ids)
    dispatch.play_bots_later(bot_turns.with_bots(done.resigned))
    if args.json:
        _print_json(asdict(done))
        return 0
    print(
        f"{args.email} erased: resigned {len(done.resigned)} running games, cancelled "
        f"{len(done.cancelled)} not started; their address is kept only as a hash"
    )
    return 0


def _player_unblock(app: Flask, args: argparse.Namespace) -> int:
    from pbem.domain.errors import ServiceError

    try:
        was = player_data.unblock(app.config["PBEM"], args.email)
    except ServiceError as exc:
        print(f"pbem admin player unblock: {exc.message}", file=sys.stderr)
        return 2
    print(f"{args.email} may be invited again" + ("" if was else " (it was not erased)"))
    return 0


def _json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="answer as JSON")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number above 0")
    return value


Run = Callable[[Flask, argparse.Namespace], int]


def _with_app(app_factory: Callable[[], Flask], run: Run) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        app = app_factory()
        with app.app_context():
            return run(app, args)

    return command


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, default=_jsonable, ensure_ascii=False))


def _jsonable(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds") + "Z"
    raise TypeError(f"{type(value).__name__} is not JSON")


def _when(moment: datetime | None) -> str:
    return "never" if moment is None else f"{moment:%Y-%m-%d %H:%M} UTC"


def _mail_failed(app: Flask, args: argparse.Namespace) -> int:

    found = failed_mail.failed(args.limit)
    if args.json:
        _print_json([asdict(email) for email in found])
        return 0
    if not found:
        print("no email has failed")
        return 0
    for email in found:
        game = f" (game {email.game_id})" if email.game_id else ""
        print(f"{email.id}: {email.kind}{game} to {email.to}, written {_when(email.written_at)}")
        print(f"    {email.subject}")
        print(f"    failed after {email.attempts} tries: {email.why}")
        if email.bouncing_since:
            print(f"    the address bounces since {_when(email.bouncing_since)}")
    print(f"send one again with: pbem admin mail resend ID ({len(found)} shown)")
    return 0


def _mail_resend(app: Flask, args: argparse.Namespace) -> int:
    from pbem import dispatch
    from pbem.extensions import db
    from pbem.models import utcnow

    try:
        resent = failed_mail.resend(app.config["PBEM"], args.id, utcnow())
    except failed_mail.AdminError as exc:
        db.session.rollback()
        print(f"pbem admin mail resend: {exc}", file=sys.stderr)
        return 2
    db.session.commit()
    queued = dispatch.send_emails_later([resent.id])
    if args.json:
        _print_json({**asdict(resent), "queued": queued})
        return 0
    print(f"email {resent.id} to {resent.to} ({resent.was} before) is due again")
    if not queued:
        print("the mail queue is unreachable; the sweep will send it", file=sys.stderr)
    if resent.bouncing_since:
        print(
            f"note: the address bounces since {_when(resent.bouncing_since)}; pbem writes it "
            "nothing new until the player signs in again",
            file=sys.stderr,
        )
    return 0


def _games_stuck(app: Flask, args: argparse.Namespace) -> int:
    from pbem.models import utcnow

    now = utcnow()
    found = stuck.stuck(app.config["PBEM"], now, timedelta(seconds=args.older_than))
    if args.json:
        _print_json(
            [asdict(item) | {"overdue_seconds": _seconds(now, item.since)} for item in found]
        )
        return 1 if found else 0
    if not found:
        print(f"nothing is stuck (nothing overdue by more than {args.older_than} s)")
        return 0
    for item in found:
        game = f"game {item.game_id}, " if item.game_id else ""
        overdue = _seconds(now, item.since)
        print(f"{item.kind}: {game}{item.ref}, overdue {overdue} s since {_when(item.since)}")
        print(f"    {item.what}")
    return 1


def _seconds(now: datetime, since: datetime | None) -> int:
    return 0 if since is None else max(0, int((now - since).total_seconds()))


def _stats(app: Flask, args: argparse.Namespace) -> int:
    from pbem.models import utcnow

    figures = stats.stats(utcnow())
    if args.json:
        _print_json(asdict(figures))
        return 0
    print("games:")
    for engine, statuses in sorted(figures.games.items()):
        counted = ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))
        print(f"    {engine}: {counted}")
    if not figures.games:
        print("    none yet")
    print("players: " + ", ".join(f"{n} {what}" for what, n in figures.players.items()))
    print(f"moves: {figures.moves['total']} in all, {figures.moves['last_24h']} in the last day")
    print("emails: " + ", ".join(f"{n} {what}" for what, n in sorted(figures.emails.items())))
    oldest = figures.oldest_unsent_seconds
    print(f"oldest unsent email: {'none' if oldest is None else f'{oldest:.0f} s old'}")
    print(f"moves waiting to be applied: {figures.submissions_pending}")
    print(f"board pictures stored: {figures.pictures_stored}")
    clock = figures.clock_last_run_seconds
    print(f"clock task: {'never ran' if clock is None else f'ran {clock:.0f} s ago'}")
    return 0


def _backup_commands(commands: Any, app_factory: Callable[[], Flask]) -> None:
    save = commands.add_parser(
        "backup",
        help="write the whole database to FILE, while the service runs",
        description="Write the whole database to FILE: SQLite's online backup, or pg_dump's "
        "custom format for PostgreSQL (pg_dump must be installed). The service keeps running.",
    )
    save.add_argument("file", metavar="FILE")
    save.set_defaults(run=_with_app(app_factory, _backup))
    load = commands.add_parser(
        "restore",
        help="put a backup into an empty database, withdraw every link and email fresh ones",
        description="Put the backup in FILE into the database (an empty one, or over this one "
        "with --replace; stop the service first), bring it to this code's migrations, "
        "withdraw every link and email each player a fresh one. What happened after the "
        "backup is lost.",
    )
    load.add_argument("file", metavar="FILE")
    load.add_argument("--replace", action="store_true", help="overwrite the database that is there")
    load.set_defaults(run=_restore)


def _backup(app: Flask, args: argparse.Namespace) -> int:
    from pathlib import Path

    from pbem.extensions import db

    try:
        written = backups.backup(app.config["PBEM"], db.engine, Path(args.file))
    except (backups.BackupError, OSError) as exc:
        print(f"pbem backup: {exc}", file=sys.stderr)
        return 2
    print(f"backup written to {written.path} ({written.size} bytes)")
    print(f"restore it with: pbem restore {written.path}")
    return 0


def _restore(args: argparse.Namespace) -> int:
    """Not through `app_factory`: that upgrades an embedded database, which would make the
    empty one it restores into not empty."""
    from pathlib import Path

    from flask_migrate import upgrade

    from pbem import dispatch, logs
    from pbem.app import create_app
    from pbem.extensions import db

    app = create_app()
    config = app.config["PBEM"]
    logs.configure(config.ops.log_format, "cli")
    with app.app_context():
        try:
            backups.restore(config, db.engine, Path(args.file), args.replace)
        except (backups.BackupError, OSError) as exc:
            print(f"pbem restore: {exc}", file=sys.stderr)
            return 2
        upgrade()
        last = backups.last_activity()
        outbox_ids = backups.renew_links(config, last)
        queued = dispatch.send_emails_later(outbox_ids)
    print(f"restored from {args.file}; the last move it holds was made {_when(last)}")
    print(f"every link withdrawn; {len(outbox_ids)} players emailed a fresh one")
    if not queued:
        print("the mail queue is unreachable; the sweep will send those emails", file=sys.stderr)
    return 0
