"""Golden digests of GORami and MMW games, recorded before the engines were made faster.

Seeded random games per configuration (the ones bench/engines.py times), hashed as they go: every
legal-move list; `json.dumps(to_json())` (key order kept, so the stored bytes are pinned, and with
sort_keys) every few plies, at the end, and again after a `from_json` round trip; views, summaries
and sentences; text drawings and the final SVG; the refusals of stale, foreign and junk moves. A
faster engine must give the same digests: the same games, the same stored JSON, the same words.

The `drawn` digests were recorded again once, when the boards' name lines changed on purpose
(each name on a line of its own under the board); the `words` digests once, when `Summary` gained
`hand_brief` (the page's short hand; its repr is hashed; checked to be the only difference); MMW's
`drawn` digests once more, when a pyramid label's halo became a copy drawn under it (HTML allows no
`paint-order` on inline SVG; checked to be the only difference); every other stream is as first
recorded.

Regenerate (only when a rule or a format changes on purpose, never to make a speed-up pass):

    PYTHONPATH=. .venv/bin/python tests/games/test_speed_equivalence_gorami_mmw.py
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from pbem import games
from pbem.games import MoveError
from pbem.games.gorami import setup
from pbem.games.mmw import position
from pbem.games.mmw import rules as mmw_rules

GAMES = 30
EVERY = 7  # plies between full snapshots (JSON, views, round trip, refusals)

CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "gorami-22": ("gorami", {"board": 22}),
    "gorami-16": ("gorami", {"board": 16}),
    "gorami-24": ("gorami", {"board": 24}),
    "mmw": ("mmw", {}),
    # Often undoing the mover's own last move: repetitions after long quiet stretches.
    "mmw-shuffle": ("mmw", {}),
    # Hand-made positions (setup, position), odd ones included, played on from there.
    "gorami-setup": ("gorami", {}),
    "mmw-position": ("mmw", {}),
}

EXPECTED: dict[str, dict[str, str]] = {
    "gorami-22": {
        "legal": "8a9e0b5fb3a47a4586f40c7df41eecdb7556240fc7aff1c1bdf245759b97d3aa",
        "json": "6d37f6c9c05a37fc4137cd0ee922667053a496841ddeb4165f5ebc632482481d",
        "sorted": "e7914228459cda952482f4f05fb1bda728d95c8eaee175d93b0850edd2cf241c",
        "reload": "df8cffb4ef888d288284173a52ceae6097e13b425ca59769d05fda78df253070",
        "words": "ed3d1106ec0c5ff22fa1ba60451c94cb298dadf72daf00d369598e4d20289366",
        "errors": "f7f85c4e2597dec03125b4fa0410c82eb97bdabc718e1a496061306aa34b4037",
        "drawn": "7b3ca25f5cc13773c974c8dac49efa576c4c25c769f5ec8ff6a53d4261dfa85b",
    },
    "gorami-16": {
        "legal": "97ac0dab69a2a1bc86af87e592f097282ff7da229f998953a8c645fff81e6808",
        "json": "c49ece25a10f55c6036710e5c6919544d896e52fd15211044694fc641bd49358",
        "sorted": "fa77f6841bf2f3ca96851fb42895c3465c091d4fc122c234f1ef12a05e7ff42a",
        "reload": "64233f4a169ae8eada3978e307513346b3880db80a6610982672676eb7905ae6",
        "words": "eaf817bee9f891b2ee02d460326e367faf0e50c4ba774c970b6a1b5c9f02068c",
        "errors": "a0795e09abd798112e4935aa576453b3cbd0dd5bba7d4031feb30e926c495acb",
        "drawn": "4a2881bc3a9928789ae73d4bc5206ac1c6e08d0d4eb97e4e29f5ed04bcf1741f",
    },
    "gorami-24": {
        "legal": "cdc1de2d286ed106d9892cacff968b6883cc49feafa5535c65891a598a0fcabc",
        "json": "1ede3986121ed9d003c90366bfd2acd9cd0b09e8abfd3700f185eb711cde3079",
        "sorted": "f1fbc0449870dcef9b677a46128b9fdc2b5d51d2bda983384ea87e699712e820",
        "reload": "dccb859ae96747f9ddb0a779fb78a6e5d8ac6737fec98999ee976d5131b40b51",
        "words": "950e95d6c28999126e1c76ff6e16ae02a9c7591a259136b498b62e8924852a1b",
        "errors": "ca0fa55ae60c9780f6e6b1d761afd28d783656ca85552fb92bc2798276c7c8ee",
        "drawn": "7b3aa8c3fb1aa8dbb0423d48c553de3ea3b7e29a4bfdc80c2950dfb5eca5764c",
    },
    "mmw": {
        "legal": "0cdaba2027401f0a9fc61194dac4ff9807b6e870dcab66d3d86a19f0f1a27f21",
        "json": "3fe671dc6b7eeb809238cc129d8a2ed753badb33b7d49de6247beeee4bcc6e51",
        "sorted": "d7a4ca62ef04d8b238a74111dfe19101d49fa8dee3d4bc971c3a45a50e1e81a3",
        "reload": "00b9991dc182aa7a6756c8fc3548a56b89dd133e9ff451f2324b76909928c713",
        "words": "0e0f2ef8a6f809573c8f8e5d77335ff7e4663858aef5f06383f9ade727c9f89e",
        "errors": "2745c32d90445af4c668c4695bf50c6dc52a41665db32a4bb150f240b6f74565",
        "drawn": "93d10e597cc2307d57124d66ce258b4779a1e945c3f1d1e42f557ba73963bc9b",
    },
    "mmw-shuffle": {
        "legal": "1cf1839dfd406b5eb791660cb13372015f6b68ee784c785478f86aaa3a92f63d",
        "json": "958fe811f1531fa005d7905420d6162976d8b229e32f99b3a0a5c66435995ec8",
        "sorted": "84d1687a09574f3e146cbc10ccfa32841a9f7a568a5f7b5e2b6a6cb2b3d23fe2",
        "reload": "3ec075757251f961d5affb6d8a5adeb73497e59df6d438ca5d34d4da78b28b2b",
        "words": "4cca9044d8aef966cec3e8de49fffa98797bff415ecd8ad3458ee174459c79ba",
        "errors": "e0fd6ac9da8a833850f01d1fce35cf846e400338515f81c549ab924012b4193c",
        "drawn": "fd8d500d2e7011d6853aee682e4d51618869830c098ca8cd9a6f62cdfb87c47b",
    },
    "gorami-setup": {
        "legal": "3023da3d494542c7691590971d4ad090dcbad65e7adb1cd7af5b7ac9acca3aac",
        "json": "be96339e922e847500a2cc83d069066225d1534025622999e1c757a914136d91",
        "sorted": "ff7be7b0f19c0e92bcf657aede8a21abc9982079de5b14c4b68f823872a7b79f",
        "reload": "727aac7d5d950936aad059b1b1f67908bd0832abb15e3a0d43cbfa8c946566d5",
        "words": "376bb8c6971a8fd87701fce0237aa0300d1f83eee494fd29d3f2ab090b30f52c",
        "errors": "ee9af7fd274ef729ba2a6b0bad19fb0c71b8ca2fc559e8fc75c74cd862b83c25",
        "drawn": "948089c25472a8cf834f00a103a1fd1ed867dfff61db170f50813e51003dd41c",
    },
    "mmw-position": {
        "legal": "2aac48d476dd7389a99a5650ef22b97795736c98ef4f95f6ad745fec2c385ddd",
        "json": "e441ea1a5ad06d16929e89e8b95ea61a3743bb922016e2f990d1384bc6b0be2a",
        "sorted": "e01203927bdd312e69ba51eff3d05d4b3bc615e2424317f980e89a0d558eae6f",
        "reload": "50a04d6826275dbabb6de9a191c2ee26f9eddb62785836cae65fed61693b0a37",
        "words": "6b61b60b7bf8221581bbfee07e025dfb66a589755c7fc3d96c3684d5c39cabfc",
        "errors": "1acb1bf6c4cdb87f1f412b914b2274fd31f93809e9f5e6a9990806d97b90be8a",
        "drawn": "d0808c3f13b8b5a893f95bfbe85556220f6baa677d070be69f662ff01c407e4f",
    },
}


def _dump(data: object) -> bytes:
    return json.dumps(data).encode()


def _universe(name: str, state: games.State) -> list[str]:
    """Every canonical-looking move of the board, legal or not, to be refused where illegal."""
    view = state.view(None)
    if name == "gorami":
        return [f"{n}{cell['name']}" for n in (1, 2, 3) for cell in view["cells"]]
    squares = list(view["squares"])
    return [f"{a}-{b}" for a in squares for b in squares]


def _refusal(state: games.State, move: str) -> str:
    try:
        after = state.play(move)
    except MoveError as exc:
        return f"{type(exc).__name__}: {exc}"
    return "played " + after.history[-1]


def _gorami_setup(seed: int) -> games.State:
    """A position of random discs, some turned over (so the hands are not the defaults), every
    fifth with a cell written twice in different case: setup accepts that, and so it must play
    on as it always did."""
    rng = random.Random(f"gorami setup {seed}")
    size = (16, 22, 24)[seed % 3]
    cells = games.get("gorami").new(2, {"board": size}).view(None)["cells"]
    per_number = 3 if size == 16 else 4
    numbers: dict[str, int] = {}
    discs: dict[str, str] = {}
    placed = [[0, 0, 0], [0, 0, 0]]
    for cell in rng.sample(cells, len(cells)):
        if rng.random() < 0.4:
            continue
        n, seat = rng.randint(1, 3), rng.randint(0, 1)
        if placed[seat][n - 1] == per_number:
            continue
        if any(numbers.get(near) == n for near in cell["neighbours"]):
            continue
        numbers[cell["name"]] = n
        placed[seat][n - 1] += 1
        discs[cell["name"]] = "yb"[seat] + str(n)
    hands = [[per_number - placed[s][n] for n in range(3)] for s in range(2)]
    captured = []
    for name in list(discs)[: rng.randint(0, 3)]:
        discs[name] = ("b" if discs[name][0] == "y" else "y") + discs[name][1]
        captured.append(name)
    if seed % 5 == 0 and discs:
        # The second disc comes out of its hand, so the disc counts still add up.
        twice = rng.choice(list(discs))
        near = next(cell["neighbours"] for cell in cells if cell["name"] == twice)
        for code in rng.sample(["y1", "b1", "y2", "b2", "y3", "b3"], 6):
            seat, n = "yb".index(code[0]), int(code[1])
            if hands[seat][n - 1] and all(numbers.get(other) != n for other in near):
                hands[seat][n - 1] -= 1
                discs[twice.upper()] = code
                break
    return setup(size, discs, to_move=seed % 2, hands=hands, seed=seed, captured=captured)


def _mmw_position(seed: int) -> games.State:
    """Any arrangement of some of the pyramids, either to move, some near the 100-ply draw."""
    rng = random.Random(f"mmw position {seed}")
    pyramids = [f"{c}{size}" for c in "rb" for size in (1, 2, 3) for _ in range(5)]
    squares: dict[str, list[str]] = {}
    for token in rng.sample(pyramids, len(pyramids)):
        if rng.random() < 0.6:
            square = f"{rng.choice('abcde')}{rng.randint(1, 5)}"
            squares.setdefault(square, []).append(token)
    pws = rng.choice([0, 0, 40, 97, 99, 100])
    return position(squares, to_move=rng.randint(0, 1), plies_without_sinking=pws, seed=seed)


def _start(key: str, seed: int) -> games.State:
    name, options = CONFIGS[key]
    if key == "gorami-setup":
        return _gorami_setup(seed)
    if key == "mmw-position":
        return _mmw_position(seed)
    return games.get(name).new(players=2, options=options, seed=seed)


def _choose(key: str, state: games.State, moves: list[str], rng: random.Random) -> str:
    if key in ("mmw-shuffle", "mmw-position") and len(state.history) >= 2 and rng.random() < 0.2:
        frm, to = state.history[-2].split("-")
        back = f"{to}-{frm}"
        if back in moves:
            return back
    return rng.choice(moves)


def digests(key: str, count: int = GAMES) -> dict[str, str]:
    """sha256 per stream over `count` seeded games of one configuration."""
    name = CONFIGS[key][0]
    game = games.get(name)
    kinds = ("legal", "json", "sorted", "reload", "words", "errors", "drawn")
    streams = {s: hashlib.sha256() for s in kinds}
    for seed in range(count):
        rng = random.Random(seed)
        try:
            state = _start(key, seed)
        except ValueError as exc:  # a hand-made position the engine refuses, and must refuse
            streams["errors"].update(str(exc).encode())
            continue
        universe = _universe(name, state)
        plies = 0
        while True:
            moves = state.legal_moves()
            streams["legal"].update(_dump(moves))
            snapshot = plies % EVERY == 0 or state.outcome is not None
            if snapshot:
                data = state.to_json()
                streams["json"].update(_dump(data))
                streams["sorted"].update(json.dumps(data, sort_keys=True).encode())
                try:
                    again = game.from_json(json.loads(json.dumps(data)))
                except ValueError as exc:  # a cell written twice does not load back
                    streams["reload"].update(str(exc).encode())
                else:
                    streams["reload"].update(_dump(again.to_json()))
                    streams["reload"].update(_dump(again.legal_moves()))
                    streams["reload"].update(_dump(again.view(None)))
                for seat in (None, 0, 1):
                    streams["words"].update(_dump(state.view(seat)))
                    summary = state.summary(seat)
                    streams["words"].update(repr(summary).encode())
                streams["words"].update(_dump([state.scores(), state.describe_outcome()]))
                streams["drawn"].update(game.render_text(state, seat=seed % 2).encode())
                tries = [rng.choice(universe), rng.choice(universe), " ZZ ", "", "1-"]
                tries += state.history[-3:]
                for move in tries:
                    if move not in moves:
                        streams["errors"].update(_refusal(state, move).encode())
                        try:
                            state.describe(move)
                        except MoveError as exc:
                            streams["errors"].update(str(exc).encode())
            if state.outcome is not None:
                streams["json"].update(_dump(state.outcome.to_json()))
                streams["drawn"].update(
                    game.render_svg(state, seat=0, names=["Ann", "Bo"]).encode()
                )
                break
            move = _choose(key, state, moves, rng)
            before = state.to_json() if snapshot else None
            if plies % 5 == 3:
                # The loose spellings go through the parser, not the canonical fast path.
                spelled = " " + move.upper() + " "
                after, words = state.play_described(spelled)
                assert after.history[-1] == move
            else:
                after, words = state.play_described(move)
            streams["words"].update(words.encode())
            if snapshot:
                # Copy-on-play: a second line of play from the same position leaves both alone.
                other = state.play(rng.choice(moves))
                assert state.to_json() == before
                assert other.history[:-1] == state.history
            state = after
            plies += 1
    return {s: h.hexdigest() for s, h in streams.items()}


@pytest.mark.parametrize("key", list(CONFIGS))
def test_engines_play_the_recorded_games(key: str) -> None:
    assert digests(key) == EXPECTED[key]


@pytest.mark.parametrize("mask", [0, 3])
@pytest.mark.parametrize("key", ["mmw", "mmw-shuffle", "mmw-position"])
def test_mmw_games_do_not_depend_on_the_repetition_filter(
    key: str, mask: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filter of one or four bits says "maybe seen" almost always, so nearly every ply walks
    the window: the exact comparison alone then decides, and the games must not change."""
    monkeypatch.setattr(mmw_rules, "FILTER_MASK", mask)
    assert digests(key) == EXPECTED[key]


if __name__ == "__main__":
    print("EXPECTED: dict[str, dict[str, str]] = {")
    for key in CONFIGS:
        print(f"    {key!r}: {{")
        for stream, digest in digests(key).items():
            print(f"        {stream!r}: {digest!r},")
        print("    },")
    print("}")
