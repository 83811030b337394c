"""The `pbem` command: serve, worker, beat, new-game, rotate-links, sweep, clock, mail-in, db,
play, and the operator's `admin` tools (`pbem.ops.admin_cli`)."""

from __future__ import annotations

import argparse
import logging
import os
import queue
import sys
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NoReturn

from pbem.config import ConfigError

log = logging.getLogger("pbem")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    # argparse leaves options it does not know (e.g. `pbem worker --concurrency 4`) aside; the
    # pass-through commands take them, the others refuse them.
    args, extra = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    passthrough = {"worker": "celery_args", "beat": "celery_args", "db": "db_args"}
    if extra and args.command in passthrough:
        setattr(
            args, passthrough[args.command], [*extra, *getattr(args, passthrough[args.command])]
        )
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        result: int = args.run(args)
    except ConfigError as exc:
        print(f"pbem: configuration error: {exc}", file=sys.stderr)
        return 2
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pbem", description="pbem: play-by-email board games (see README.md)."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _serving_commands(commands)
    _game_commands(commands)
    _task_commands(commands)
    _process_commands(commands)
    from pbem.ops import admin_cli

    admin_cli.add_commands(commands, command_app)
    return parser


# The parser's subcommand group (argparse keeps its class private).
Commands = Any


def _serving_commands(commands: Commands) -> None:
    """serve and mail-in: the service in one process, and one reply by mail."""
    serve = commands.add_parser(
        "serve", help="run the whole service in one process (embedded default: SQLite, no Redis)"
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
        "interface, with BASE_URL set to the address others reach it at)",
    )
    serve.add_argument("--port", type=int, default=5000)
    serve.add_argument(
        "--mail-in-port",
        type=int,
        metavar="PORT",
        help="also take replies by mail: an SMTP listener on 127.0.0.1:PORT (off by default)",
    )
    serve.set_defaults(run=_serve)

    mail_in = commands.add_parser(
        "mail-in",
        help="handle one reply by mail, read from standard input (an MTA's pipe transport)",
        description="Read one RFC 5322 message on standard input and handle it as a reply to a "
        "turn email: play its moves, answer it, or ignore it (auto-replies, bounces). Exits 0 "
        "when it was handled or ignored, 75 (EX_TEMPFAIL: the MTA tries again) when the "
        "database cannot be reached. RECIPIENT: the envelope's (Postfix: ${original_recipient}).",
    )
    mail_in.add_argument("recipients", nargs="*", metavar="RECIPIENT")
    mail_in.set_defaults(run=_mail_in)


def _game_commands(commands: Commands) -> None:
    """new-game and rotate-links: games and their links."""
    from pbem.domain.titles import MAX_LENGTH as TITLE_LENGTH

    new_game = commands.add_parser(
        "new-game",
        help="start a game and email the invitations",
        description="pbem new-game GAME [--title NAME] [--clock CLOCK] [--weekends-free] "
        "[--on-timeout drop|autopilot] [--language en|fr|nl|da] [--NAME VALUE ...] PLAYER "
        "PLAYER... (the first is the "
        "organiser, a person; everyone accepts through their emailed link). A PLAYER may be a "
        "bot: bot:random, bot:greedy or bot:mcts play against you, take their seats at once "
        "and get no mail. --on-timeout: in a game of three or four, a player who runs out of "
        "time leaves it (drop, the default) or pbem's greedy bot plays their seat (autopilot). "
        "NAME names the game ('Tuesday night game', quoted as one "
        f"argument; 1 to {TITLE_LENGTH} characters on one line, no address or link): it heads "
        "the game's "
        "pages and mail, and subjects give the game's id after it. A PLAYER is an address, or a "
        "name and an address as a mail client writes them: "
        "'Alice Smith <alice@example.org>' (quoted as one argument); the name is shown to the "
        "other players until that player chooses their own, and never replaces a name they "
        "chose. CLOCK is none, days:N (N days per move) or "
        "fischer:INITIAL+INCREMENT[/MAX] (days); the default is the service's "
        "(PBEM_DEFAULT_CLOCK, days:3). --weekends-free: Saturdays and Sundays (UTC) do not "
        "count. --language: of its invitations, and of its mail to players who chose none "
        "(default en). Every other option is one of the game's, given as --NAME VALUE (--board 16, "
        "--length long): the README's table of games lists them, and a wrong one is answered "
        "with the game's own.",
    )
    new_game.add_argument("game")
    new_game.add_argument("rest", nargs=argparse.REMAINDER, metavar="[--NAME VALUE] PLAYER")
    new_game.set_defaults(run=_new_game)

    rotate = commands.add_parser(
        "rotate-links",
        help="revoke every link of one seat (GAME_ID SEAT) or of one player in every game "
        "(--player EMAIL), and email a fresh one",
    )
    rotate.add_argument("game_id", nargs="?")
    rotate.add_argument("seat", type=int, nargs="?")
    rotate.add_argument("--player", metavar="EMAIL", help="every link this address holds")
    rotate.add_argument("--quiet", action="store_true", help="revoke without emailing")
    rotate.set_defaults(run=_rotate)


def _task_commands(commands: Commands) -> None:
    """sweep, clock and digest: the periodic tasks, run once."""
    sweep = commands.add_parser("sweep", help="re-enqueue pending moves and unsent mail once")
    sweep.set_defaults(run=_sweep)

    clock = commands.add_parser(
        "clock",
        help="run the clock task once: downtime, vacations, reminders, timeouts, invitations",
        description="Run the clock task once, as of now or of the instant given, then send the "
        "mail it wrote. The same code as the periodic task. With --now it acts as of that "
        "instant and leaves downtime alone: it neither measures a gap since the last run nor "
        "records itself as one, so no deadline is extended by the jump.",
    )
    _now_option(clock, "2026-12-03T18:00:00Z")
    clock.set_defaults(run=_clock)

    digest = commands.add_parser(
        "digest",
        help="write the daily digests that are due, then send them",
        description="Write the daily digest of every player who chose one and whose digest hour "
        "(PBEM_DIGEST_HOUR in their time zone) has passed since their last, then send them. "
        "The same code as the periodic task; running it twice sends nothing twice.",
    )
    _now_option(digest, "2026-12-03T07:00:00Z")
    digest.set_defaults(run=_digest)


def _process_commands(commands: Commands) -> None:
    """worker, beat and db: the service's processes; play: a game in the terminal."""
    for name, helptext in (
        ("worker", "run a Celery worker (arguments go to `celery worker`)"),
        (
            "beat",
            "run Celery beat, which schedules the sweep and the clock task (arguments go to "
            "`celery beat`)",
        ),
    ):
        sub = commands.add_parser(name, help=helptext)
        sub.add_argument("celery_args", nargs=argparse.REMAINDER)
        sub.set_defaults(run=_celery_command, celery_command=name)

    db = commands.add_parser("db", help="database migrations: `pbem db upgrade` (Flask-Migrate)")
    db.add_argument("db_args", nargs=argparse.REMAINDER)
    db.set_defaults(run=_db)

    play = commands.add_parser("play", help="play a game hot-seat in the terminal")
    play.add_argument("play_args", nargs=argparse.REMAINDER, metavar="GAME [--option value]")
    play.set_defaults(run=_play)


def _now_option(command: argparse.ArgumentParser, example: str) -> None:
    command.add_argument(
        "--now",
        metavar="ISO-8601",
        type=_instant,
        help=f"act as of this instant (e.g. {example}; no zone means UTC)",
    )


def command_app(overrides: dict[str, str] | None = None, role: str = "cli") -> Any:
    """The app of a command, its logs set up as `PBEM_LOG_FORMAT` says (`pbem.logs`);
    `overrides` as `create_app` takes them."""
    from pbem import logs
    from pbem.app import create_app

    app = create_app(overrides)
    logs.configure(app.config["PBEM"].ops.log_format, role)
    if app.config["PBEM"].is_sqlite:
        # The embedded database upgrades itself; a shared one is upgraded by `pbem db upgrade`
        # (the Procfile's release step), once, before new code serves it.
        upgrade_if_behind(app)
    return app


def upgrade_if_behind(app: Any) -> None:
    from flask_migrate import upgrade

    from pbem.extensions import db
    from pbem.ops.readiness import current_heads, migration_heads

    with app.app_context():
        with db.engine.connect() as connection:
            current = current_heads(connection)
        if current != migration_heads():
            upgrade()


def _serve(args: argparse.Namespace) -> int:
    from pbem import served_address

    given = os.environ.get("BASE_URL", "").strip()
    # Links in mail point at this server unless BASE_URL says otherwise.
    app = command_app(
        None if given else {"BASE_URL": served_address.url_for(args.host, args.port)}, "web"
    )
    config = app.config["PBEM"]
    if config.embedded_tasks:
        _serve_tasks(app, config)
    # print, not log: running the migrations reconfigured logging (alembic.ini).
    print(f"pbem: serving on {served_address.url_for(args.host, args.port)}/", file=sys.stderr)
    _record_address(config, args, given)
    if config.mail_to_files:
        # /outbox answers loopback clients only (pbem.web.outbox), whatever BASE_URL says.
        loopback = served_address.loopback_of(args.host)
        where = (
            f"listed on this machine at http://{loopback}:{args.port}/outbox"
            if loopback
            else f"not shown: /outbox answers loopback only, where --host {args.host} is not"
        )
        print(f"pbem: mail is saved in {config.outbox_dir}, {where}", file=sys.stderr)
    listener = None
    if args.mail_in_port is not None:
        from pbem.mailin.listener import HOST, start_mail_in

        listener = start_mail_in(app, args.mail_in_port)
        print(f"pbem: replies by mail to {HOST}:{args.mail_in_port}", file=sys.stderr)
    from werkzeug.serving import run_simple

    try:
        run_simple(args.host, args.port, app, threaded=True)
    finally:
        if listener is not None:
            listener.stop()
    return 0


def _serve_tasks(app: Any, config: Any) -> None:
    """The embedded default's periodic tasks and bot worker, as background threads."""
    from pbem.dispatch import BOT_RUNNER
    from pbem.domain.digest import PERIOD_SECONDS as DIGEST_PERIOD_SECONDS

    for task, interval in (
        ("sweep", config.sweep_seconds),
        ("clock", config.clocks.period_seconds),
        ("digest", DIGEST_PERIOD_SECONDS),
    ):
        threading.Thread(target=_every, args=(app, task, interval), daemon=True, name=task).start()
    # The bot worker's job: bots think here, not on the thread of the request that gave them
    # the turn.
    games_for_bots: queue.Queue[str] = queue.Queue()
    app.extensions[BOT_RUNNER] = games_for_bots
    threading.Thread(target=_bots, args=(app, games_for_bots), daemon=True, name="bots").start()


def _record_address(config: Any, args: argparse.Namespace, given: str) -> None:
    """Record the base of this server's links for the other commands, and warn when those links
    cannot reach it (`pbem.served_address`)."""
    from pbem import served_address

    try:
        where = served_address.record(config.var_dir, config.base_url)
    except OSError as exc:
        print(
            f"pbem: warning: could not record this server's address in {config.var_dir} "
            f"({exc.strerror or exc}); other commands need BASE_URL={config.base_url}",
            file=sys.stderr,
        )
    else:
        print(
            f"pbem: links in mail start with {config.base_url} (recorded in {where})",
            file=sys.stderr,
        )
    for warning in served_address.warnings(config.base_url, bool(given), args.host, args.port):
        print(f"pbem: warning: {warning}", file=sys.stderr)


def _bots(app: Any, games_for_bots: queue.Queue[str]) -> None:
    """The Procfile's `bot` worker in the embedded default: play each game handed over
    (`pbem.dispatch.play_bots_later`), one at a time."""
    task = app.extensions["celery"].tasks["workers.tasks.play_bot"]
    while True:
        game_id = games_for_bots.get()
        try:
            task(game_id)
        except Exception:
            log.exception("the bot of game %s failed; the sweep hands its turn over again", game_id)


def _every(app: Any, name: str, interval: int) -> None:
    """Beat's job in the embedded default: run the `name` task every `interval` seconds (the
    sweep: in-process tasks never lose work, but a crash between the commit and the task
    would; the clock: timeouts, reminders, vacations, invitations)."""
    task = app.extensions["celery"].tasks[f"workers.tasks.{name}"]
    last = ""
    while True:
        threading.Event().wait(interval)
        try:
            task()
            last = ""
        except Exception as exc:
            # A failure that lasts (the database gone) would repeat its traceback every run:
            # it is printed once, and each repeat is one line.
            problem = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            if problem == last:
                log.warning("%s failed again: %s", name, problem)
            else:
                log.exception("%s failed", name)
            last = problem


def _new_game(args: argparse.Namespace) -> int:
    from pbem import dispatch
    from pbem.domain import bot_seats
    from pbem.domain.clocks import ClockError, parse_clock
    from pbem.domain.errors import SetupError
    from pbem.domain.names import parse_invitees
    from pbem.domain.starting import create_game
    from pbem.domain.titles import clean_title
    from pbem.models import TIMEOUT_POLICIES

    options, players, service = _options_and_emails(args.rest)
    try:
        invitees = parse_invitees(players)
    except SetupError as exc:
        print(f"pbem new-game: {exc.message}", file=sys.stderr)
        return 2
    try:
        # Given, it must be a name: `--title ""` is a mistake, not a wish for no name.
        title = clean_title(service["title"]) if "title" in service else None
    except SetupError as exc:
        print(f"pbem new-game: --title: {exc.message}", file=sys.stderr)
        return 2
    emails = [invitee.address for invitee in invitees]
    policy = service.get("on_timeout")
    if "on_timeout" in service and policy not in TIMEOUT_POLICIES:
        allowed = " or ".join(TIMEOUT_POLICIES)
        print(f"pbem new-game: --on-timeout takes {allowed}, not {policy!r}", file=sys.stderr)
        return 2
    app = command_app()
    config = app.config["PBEM"]
    try:
        clock_text = service.get("clock") or config.clocks.default_clock
        clock = parse_clock(clock_text, weekends_free="weekends_free" in service)
    except ClockError as exc:
        print(f"pbem new-game: --clock: {exc}", file=sys.stderr)
        return 2
    if clock.kind == "none" and "weekends_free" in service:
        print("pbem new-game: --weekends-free needs a clock; the game has none", file=sys.stderr)
        return 2
    with app.app_context():
        try:
            created = create_game(
                config,
                args.game,
                options,
                emails,
                clock=clock,
                names=[invitee.name for invitee in invitees],
                title=title,
                timeout_policy=policy,
                language=service.get("language"),
            )
        except SetupError as exc:
            print(f"pbem new-game: {exc.message}", file=sys.stderr)
            return 2
        queued = dispatch.send_emails_later(created.outbox_ids)
    people = bot_seats.addresses(emails)
    robots = [text.strip().lower() for text in emails if bot_seats.is_bot_entry(text)]
    against = f"; against {', '.join(robots)}" if robots else ""
    print(f"game {created.game_id}: invitations to {', '.join(people)}{against}")
    if config.mail_to_files:
        print(
            f"mail is saved in {config.outbox_dir}; with `pbem serve`, see {config.base_url}/outbox"
        )
    if not queued:
        print("the mail queue is unreachable; the sweep will send the invitations", file=sys.stderr)
    return 0


# The service's own options of `pbem new-game`, parsed apart from the game's: no engine may
# declare an option of these names (tests/test_cli.py checks every registered engine).
SERVICE_OPTIONS = ("clock", "weekends_free", "title", "on_timeout", "language")
# Those of them that are flags, given without a value.
SERVICE_FLAGS = ("weekends_free",)


def _refuse(problem: str) -> NoReturn:
    """Stop `pbem new-game` with a usage error (status 2, as argparse does)."""
    print(f"pbem new-game: {problem}", file=sys.stderr)
    raise SystemExit(2)


def _options_and_emails(
    rest: Sequence[str],
) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """`--name value` and `--name=value` pairs are the game's options, but for the service's
    own (`--clock CLOCK`, `--title NAME`, `--on-timeout POLICY`, `--language LANG`, the flag
    `--weekends-free`);
    everything else is a player (an address, or a bot)."""
    options: dict[str, str] = {}
    service: dict[str, str] = {}
    emails: list[str] = []
    items = list(rest)
    while items:
        item = items.pop(0)
        if item.startswith("--"):
            raw, has_value, value = item[2:].partition("=")
            name = raw.replace("-", "_")
            if name in SERVICE_FLAGS:
                if has_value:
                    _refuse(f"--{raw} is a flag; it takes no value")
                service[name] = ""
                continue
            if not has_value:
                if not items:
                    _refuse(f"option --{raw} needs a value")
                value = items.pop(0)
            (service if name in SERVICE_OPTIONS else options)[name] = value
        else:
            emails.append(item)
    return options, emails, service


def _rotate(args: argparse.Namespace) -> int:
    from pbem import dispatch
    from pbem.domain.errors import ServiceError
    from pbem.domain.rotation import rotate_player_links, rotate_seat_links

    by_seat = args.game_id is not None and args.seat is not None
    if by_seat == (args.player is not None):
        print("pbem rotate-links: give GAME_ID SEAT, or --player EMAIL", file=sys.stderr)
        return 2
    app = command_app()
    config = app.config["PBEM"]
    with app.app_context():
        try:
            if by_seat:
                outbox_ids = rotate_seat_links(
                    config, args.game_id, args.seat, notify=not args.quiet
                )
                done = f"game {args.game_id} seat {args.seat}: old links revoked"
            else:
                outbox_ids = rotate_player_links(config, args.player, notify=not args.quiet)
                done = f"{args.player}: every link revoked, in every game"
        except ServiceError as exc:
            print(f"pbem rotate-links: {exc.message}", file=sys.stderr)
            return 2
        dispatch.send_emails_later(outbox_ids)
    print(done)
    return 0


def _sweep(args: argparse.Namespace) -> int:
    app = command_app()
    app.extensions["celery"].tasks["workers.tasks.sweep"]()
    return 0


def _instant(text: str) -> datetime:
    """An ISO 8601 instant as naive UTC (the storage convention); no zone means UTC."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 instant; write e.g. 2026-12-03T18:00:00Z"
        ) from exc
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def _clock(args: argparse.Namespace) -> int:
    from functools import partial

    from pbem.domain.clock_task import run_clock

    # As of an instant given, the run stands outside the service's timeline: the jump is not
    # downtime, and the next periodic run measures its gap from the last periodic one.
    return _run_once("clock", partial(run_clock, measure_downtime=args.now is None), args.now)


def _run_once(name: str, run: Any, now: datetime | None) -> int:
    """A periodic task's run, once, as of `now`: `run(config, now=)` returns a report with the
    mail it wrote (`outbox_ids`), sent here, a `summary()` line and, for the clock, the games
    that timed out, where a bot may have the turn now (`timed_out`)."""
    from pbem import dispatch
    from pbem.domain import bot_turns

    app = command_app()
    with app.app_context():
        report = run(app.config["PBEM"], now=now)
        if report.outbox_ids and not dispatch.send_emails_later(report.outbox_ids):
            print("the mail queue is unreachable; the sweep will send the mail", file=sys.stderr)
        timed_out = getattr(report, "timed_out", [])
        if timed_out:
            dispatch.play_bots_later(bot_turns.with_bots(timed_out))
    print(f"{name}: {report.summary()}")
    return 0


def _digest(args: argparse.Namespace) -> int:
    from pbem.domain.digest import run_digest

    return _run_once("digest", run_digest, args.now)


# sysexits.h: the MTA keeps the message and tries again later; or returns it to its sender.
EX_TEMPFAIL = 75
EX_SOFTWARE = 70


def _mail_in(args: argparse.Namespace) -> int:
    """One message from standard input; one line on standard output saying what became of it."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    from pbem.mailin.handle import handle_message
    from pbem.mailin.parse import MAX_BYTES

    stdin = sys.stdin.buffer
    raw = stdin.read(MAX_BYTES + 1)
    # The rest of a message too large to read is drained: an MTA counts a pipe closed early
    # as a failed delivery.
    while stdin.read(1 << 16):
        pass
    try:
        app = command_app()
        with app.app_context():
            outcome = handle_message(app.config["PBEM"], raw, args.recipients)
    except (OperationalError, InterfaceError) as exc:
        problem = " ".join(str(exc.orig or exc).split())[:200]
        print(f"pbem mail-in: the database is unreachable, try again later ({problem})")
        return EX_TEMPFAIL
    except Exception:
        # A bug, not an outage: trying again would fail again. The MTA returns the message to
        # its sender with this line, and the traceback is in our log.
        log.exception("mail-in: the message could not be handled")
        print("pbem mail-in: pbem could not handle this message because of an error on its side")
        return EX_SOFTWARE
    print(f"pbem mail-in: {outcome.line()}")
    return 0


def _celery_command(args: argparse.Namespace) -> int:
    from workers.celery_app import celery

    extra = [a for a in args.celery_args if a != "--"]
    if args.celery_command == "worker":
        celery.worker_main(["worker", *extra])
    else:
        celery.start(["beat", *extra])
    return 0


def _db(args: argparse.Namespace) -> int:
    from flask.cli import FlaskGroup

    from pbem.app import create_app

    group = FlaskGroup(create_app=lambda: create_app(), add_default_commands=False)
    try:
        group.main(args=["db", *args.db_args], prog_name="pbem", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def _play(args: argparse.Namespace) -> int:
    from pbem import terminal  # imported only when playing in the terminal

    return terminal.main(list(args.play_args))


if __name__ == "__main__":
    sys.exit(main())
