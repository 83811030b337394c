"""Golden record of seeded random Marram games, taken from the engine before it was made faster.

Every configuration (2-4 players, every variant and length) plays a few games with moves drawn by
`random.Random(seed).choice(state.legal_moves())`; some games of three and four drop seats on the
way, and a few pick greedy moves so that short games end at their threshold. For each game the
test hashes, ply by ply: the legal moves, the state's JSON, the sentence of the move played, the
error messages of moves that must be refused, views, samples and JSON round trips. A faster
engine must give every hash unchanged.

`EXPECTED` was written by running this file as a script against the engine of commit dbcff2a:
    PYTHONPATH=. python tests/games/marram/test_speed_equivalence.py
Regenerate it only when the rules change on purpose, never to make a speed-up pass. It was
regenerated once since, when `sample` stopped following the true order of the bag (issue #29: a
sample is a function of the seat's view): with the former `sample` put back, every hash still
matched dbcff2a's record; the games' paths changed because a sample's moves are drawn from the
same random generator as the game's. The `words` hashes alone were written again for issue 31,
when Marram's sentences came to name a tile by what it shows ("a sand tile with 2 flowers
(#38)") instead of its number alone; every other hash was checked unchanged.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from pbem.games.base import MoveError
from pbem.games.marram.rules import MarramState
from tests.games.marram.scenario import GAME

PLAYERS = (2, 3, 4)
VARIANTS = ("classic", "pitchfork", "animals")
LENGTHS = ("short", "long")
SEEDS = (11, 12)
KINDS = ("legal", "state", "words", "errors", "views", "samples")


def _dump(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True).encode()


def _refusals(state: MarramState, legal: list[str], rng: random.Random) -> list[str]:
    """Moves near the legal ones that the engine must refuse, each with its message."""
    move = rng.choice(legal)
    words = move.split()
    tries = ["pass", "place 99 0,0 0", "flip 0,0 0", "flip 40,40 0", "place x"]
    if words[0] == "place":
        tries.append(" ".join([*words[:3], str((int(words[3]) + 90) % 360), *words[4:]]))
        tries.append(" ".join([*words[:4], "fork", "N"]))
        tries.append(" ".join([*words[:4], "boot", "S", "bet", "E"]))
        tries.append(" ".join([*words[:4], "bet", "W"]))
    if words[0] == "flip":
        tries.append(" ".join([*words[:2], str((int(words[2]) + 180) % 360), *words[3:]]))
        tries.append(" ".join([*words[:3], "boot", "E"]))
    out = []
    for text in tries:
        if text in legal:
            continue
        try:
            state.play(text)
        except MoveError as err:
            out.append(f"{type(err).__name__}: {err}")
        else:
            raise AssertionError(f"{text!r} was played but is not in legal_moves()")
    return out


def _greedy(state: MarramState, legal: list[str], rng: random.Random) -> str:
    """The best for the mover's score of a dozen random moves: such games reach thresholds."""
    seat = state.to_move
    assert seat is not None
    candidates = rng.sample(legal, min(12, len(legal)))
    return max(candidates, key=lambda m: state.play(m).scores()[seat])


def record(players: int, variant: str, length: str, seed: int, policy: str) -> dict[str, str]:
    """Play one seeded game and return one sha256 per kind of observation."""
    hashes = {kind: hashlib.sha256() for kind in KINDS}
    rng = random.Random(seed)
    options = {"variant": variant, "length": length}
    state = GAME.new(players, options, seed=seed)
    assert isinstance(state, MarramState)
    # Games of three and four with an odd seed lose a seat on the way (sometimes mid-turn); with
    # seed 31 all but one leave.
    drops = [rng.randint(10, 60)] if players > 2 and seed % 2 else []
    if seed == 31:
        for _ in range(players - 2):
            drops.append(drops[-1] + rng.randint(1, 10))
    ply = 0
    while state.outcome is None:
        legal = state.legal_moves()
        assert legal == sorted(legal)
        hashes["legal"].update(_dump(legal))
        before = _dump(state.to_json())
        hashes["state"].update(before)
        hashes["errors"].update(_dump(_refusals(state, legal, rng)))
        if ply % 9 == 0:
            views = [state.view(s) for s in [None, *range(players)]]
            hashes["views"].update(_dump(views))
            hashes["views"].update(_dump(state.describe_outcome()))
            again = MarramState.from_json(json.loads(before))
            assert _dump(again.to_json()) == before
            assert again.legal_moves() == legal
        if ply % 13 == 0:
            for seat in (state.to_move, None):
                sample = state.sample(seat, random.Random(ply))
                hashes["samples"].update(_dump(sample.to_json()))
                hashes["samples"].update(_dump(sample.legal_moves()))
                assert sample.view(seat) == state.view(seat)
                if sample.outcome is None:
                    played = sample.play(rng.choice(sample.legal_moves()))
                    hashes["samples"].update(_dump(played.to_json()))
        if drops and ply == drops[0]:
            seat = rng.choice(state.playing())
            left = state.drop(seat)
            assert _dump(state.to_json()) == before, "drop must not change the old state"
            hashes["state"].update(_dump(["drop", seat, left.to_json()]))
            state = left
            del drops[0]
            continue
        move = rng.choice(legal) if policy == "random" else _greedy(state, legal, rng)
        if ply % 5 == 0:
            # Loose input (rules section 7) must give the canonical move.
            after, words = state.play_described("  " + move.upper().replace(",", " , ") + " ")
        else:
            after, words = state.play_described(move)
        hashes["words"].update(_dump([move, words]))
        assert after.history[-1] == move
        assert _dump(state.to_json()) == before, "play must not change the old state"
        assert state.legal_moves() == legal
        state = after
        ply += 1
    final = state.to_json()
    hashes["state"].update(_dump(["final", final]))
    hashes["views"].update(_dump([state.view(s) for s in [None, *range(players)]]))
    hashes["words"].update(_dump(state.describe_outcome()))
    hashes["legal"].update(_dump(state.legal_moves()))
    return {kind: h.hexdigest()[:16] for kind, h in hashes.items()}


CASES = [
    *((p, v, n, s, "random") for p in PLAYERS for v in VARIANTS for n in LENGTHS for s in SEEDS),
    *((p, v, "short", 21, "greedy") for p in (3, 4) for v in VARIANTS),
    *((p, "animals", "long", 31, "random") for p in (3, 4)),
]

EXPECTED: dict[str, dict[str, str]] = {
    "2-classic-short-11-random": {
        "legal": "95a96089e051b28a",
        "state": "21c08a201167a115",
        "words": "6a8e7123843b992f",
        "errors": "cf63b5185c8a935c",
        "views": "f9094ca0abe738ac",
        "samples": "fe623f25acc0045d",
    },
    "2-classic-short-12-random": {
        "legal": "596c22ae82b44f69",
        "state": "dd58f3458601373c",
        "words": "6d5d97d33fe723f9",
        "errors": "720b70e35236a0f6",
        "views": "a0ebb0eeeebb3946",
        "samples": "27befd587a46ebf2",
    },
    "2-classic-long-11-random": {
        "legal": "95a96089e051b28a",
        "state": "e08c0a8dfc9c2fc1",
        "words": "6a8e7123843b992f",
        "errors": "cf63b5185c8a935c",
        "views": "c23a232848dd5eb4",
        "samples": "f036d2522ad95c8a",
    },
    "2-classic-long-12-random": {
        "legal": "596c22ae82b44f69",
        "state": "22619111cdc9c512",
        "words": "6d5d97d33fe723f9",
        "errors": "720b70e35236a0f6",
        "views": "6c3179fe19108d2c",
        "samples": "9b24988b5a81ea4c",
    },
    "2-pitchfork-short-11-random": {
        "legal": "cd219d3ba7ad06ac",
        "state": "5592f92e8a5a5009",
        "words": "d8b9e1b80f292abd",
        "errors": "95257b79f27bd662",
        "views": "72862610b50b34b5",
        "samples": "d015793141b5e974",
    },
    "2-pitchfork-short-12-random": {
        "legal": "69e7bde520bce060",
        "state": "5129ca37cea9dcac",
        "words": "8d253c2e3cebff10",
        "errors": "f6317b00ff29c3af",
        "views": "44ef5da12e0ea293",
        "samples": "e391e04e19a58114",
    },
    "2-pitchfork-long-11-random": {
        "legal": "cd219d3ba7ad06ac",
        "state": "0a2c682de9321269",
        "words": "d8b9e1b80f292abd",
        "errors": "95257b79f27bd662",
        "views": "86a24f49be6ca0bb",
        "samples": "44f08a61fca67d34",
    },
    "2-pitchfork-long-12-random": {
        "legal": "69e7bde520bce060",
        "state": "8622bcae74e518ef",
        "words": "8d253c2e3cebff10",
        "errors": "f6317b00ff29c3af",
        "views": "0d617cae4e6f2530",
        "samples": "5c8d7d154867b239",
    },
    "2-animals-short-11-random": {
        "legal": "4ffd764c0927f50b",
        "state": "75312580ef962037",
        "words": "6e41c375d3e5fa25",
        "errors": "ad6904c42b4a99d4",
        "views": "6d1c04f93034ea6a",
        "samples": "ff3cf218ba4b8b09",
    },
    "2-animals-short-12-random": {
        "legal": "a813d86d2726527d",
        "state": "255ac80738842314",
        "words": "1b3b662b5c6d030a",
        "errors": "0ed9129308e34500",
        "views": "9b24c201a9b0ccaf",
        "samples": "31a71fc0d92ee326",
    },
    "2-animals-long-11-random": {
        "legal": "4ffd764c0927f50b",
        "state": "d0f0610a8dcff550",
        "words": "6e41c375d3e5fa25",
        "errors": "ad6904c42b4a99d4",
        "views": "f59d999f4465fb2a",
        "samples": "07b3d74792c46a66",
    },
    "2-animals-long-12-random": {
        "legal": "a813d86d2726527d",
        "state": "3175fa6282b5153c",
        "words": "1b3b662b5c6d030a",
        "errors": "0ed9129308e34500",
        "views": "b5dfbaea172df938",
        "samples": "0346a8ee89e90662",
    },
    "3-classic-short-11-random": {
        "legal": "562eceea0392b4de",
        "state": "4593d19e126fec4f",
        "words": "a0aa6c569e36e64b",
        "errors": "c2adee7f2a4d132c",
        "views": "eb15b6e16577549b",
        "samples": "e795b45d34c6588a",
    },
    "3-classic-short-12-random": {
        "legal": "fd4ed394ffe3e81e",
        "state": "8711543b5da2e0eb",
        "words": "a486c74710b5a96f",
        "errors": "2e98adb0aaf35f34",
        "views": "ca005846da7c6fc0",
        "samples": "8d36694abb2c3faf",
    },
    "3-classic-long-11-random": {
        "legal": "562eceea0392b4de",
        "state": "1580fd16258bd82b",
        "words": "a0aa6c569e36e64b",
        "errors": "c2adee7f2a4d132c",
        "views": "85e2ce7df108748b",
        "samples": "1f4f058ddc63f8e4",
    },
    "3-classic-long-12-random": {
        "legal": "fd4ed394ffe3e81e",
        "state": "818fae807491716e",
        "words": "a486c74710b5a96f",
        "errors": "2e98adb0aaf35f34",
        "views": "dfcd6b2fcb5162ff",
        "samples": "8fd0fbcc60a7cc65",
    },
    "3-pitchfork-short-11-random": {
        "legal": "77602d47b30613d4",
        "state": "6e8dcf73d07dee8a",
        "words": "794ba36a205181a8",
        "errors": "916650233140ca78",
        "views": "20d5535d462b91de",
        "samples": "98c21864a284396a",
    },
    "3-pitchfork-short-12-random": {
        "legal": "1ea1b41e2abace09",
        "state": "b1e6a5d59e3f46df",
        "words": "61bdb716b6cf4380",
        "errors": "235f818101e77e59",
        "views": "f956464cc80ce15a",
        "samples": "2d4ad2e4ac60d122",
    },
    "3-pitchfork-long-11-random": {
        "legal": "77602d47b30613d4",
        "state": "f8df26112b18f39b",
        "words": "794ba36a205181a8",
        "errors": "916650233140ca78",
        "views": "028d400fe82ec5b3",
        "samples": "17e604b9d63558eb",
    },
    "3-pitchfork-long-12-random": {
        "legal": "1ea1b41e2abace09",
        "state": "d2d65d9de337bbe7",
        "words": "61bdb716b6cf4380",
        "errors": "235f818101e77e59",
        "views": "f5aca4e55de0d0bd",
        "samples": "3443f78d0253f30f",
    },
    "3-animals-short-11-random": {
        "legal": "4e19b3272ff56110",
        "state": "d387f5e0085c8fa6",
        "words": "ee7535129438bb5e",
        "errors": "b1c52346ffe27c29",
        "views": "84e7859c0c543a44",
        "samples": "98de271feaa31a69",
    },
    "3-animals-short-12-random": {
        "legal": "eaea5529598ad5ca",
        "state": "9b25d3f8a85002a1",
        "words": "b180485929638d85",
        "errors": "f035f2908e5a76ae",
        "views": "85be96ce79c25034",
        "samples": "9c4ceefe8f702d68",
    },
    "3-animals-long-11-random": {
        "legal": "4e19b3272ff56110",
        "state": "2fe55028b252dab7",
        "words": "ee7535129438bb5e",
        "errors": "b1c52346ffe27c29",
        "views": "d9a17ed2fea9f7db",
        "samples": "2b83d03d06111c94",
    },
    "3-animals-long-12-random": {
        "legal": "eaea5529598ad5ca",
        "state": "ddc98d208ef854c7",
        "words": "b180485929638d85",
        "errors": "f035f2908e5a76ae",
        "views": "edce06ce058f1467",
        "samples": "2b17da3afc31b76e",
    },
    "4-classic-short-11-random": {
        "legal": "96b778625dab0679",
        "state": "156f4c03d3f4a31b",
        "words": "5c77f76c2732eba4",
        "errors": "8df1206533019823",
        "views": "c949d1460caf212f",
        "samples": "633d489d6e3ee8d1",
    },
    "4-classic-short-12-random": {
        "legal": "dc7ce1ac38fefaee",
        "state": "f611b31ffdc2877a",
        "words": "dfe48492737a33b8",
        "errors": "9ed5b8aa514a1a16",
        "views": "75721c3453029cba",
        "samples": "427aaccec43a1287",
    },
    "4-classic-long-11-random": {
        "legal": "96b778625dab0679",
        "state": "c301a34e3d52e19b",
        "words": "5c77f76c2732eba4",
        "errors": "8df1206533019823",
        "views": "d5fd3d0908e9f496",
        "samples": "974a1fdcc45f2d26",
    },
    "4-classic-long-12-random": {
        "legal": "dc7ce1ac38fefaee",
        "state": "3c647f5d01ba7435",
        "words": "dfe48492737a33b8",
        "errors": "9ed5b8aa514a1a16",
        "views": "5076e6f5520dd4da",
        "samples": "1c6cdf60af76fe79",
    },
    "4-pitchfork-short-11-random": {
        "legal": "0ce77c2d7e1bd394",
        "state": "7f197cac4bb747b9",
        "words": "60976bb77a65bba1",
        "errors": "1417d806fe3ef53f",
        "views": "93eb353e6d643c84",
        "samples": "c3168c565550e236",
    },
    "4-pitchfork-short-12-random": {
        "legal": "e9f5e5d99875e47e",
        "state": "71bb7d44d14de0ed",
        "words": "f87808c023b990fc",
        "errors": "ab79cf000bce5cf4",
        "views": "e96664bb14680be8",
        "samples": "b774cb3120b579d4",
    },
    "4-pitchfork-long-11-random": {
        "legal": "0ce77c2d7e1bd394",
        "state": "781391cc24aefcef",
        "words": "60976bb77a65bba1",
        "errors": "1417d806fe3ef53f",
        "views": "51eb452a1284075f",
        "samples": "90e59eaf4320e076",
    },
    "4-pitchfork-long-12-random": {
        "legal": "e9f5e5d99875e47e",
        "state": "b8ac09701837913f",
        "words": "f87808c023b990fc",
        "errors": "ab79cf000bce5cf4",
        "views": "217dbd7b9ee923e6",
        "samples": "9e0712d4948712b6",
    },
    "4-animals-short-11-random": {
        "legal": "06ba4097fed1ee74",
        "state": "cefd4277b8558199",
        "words": "8b88c4e774ea5ce9",
        "errors": "39c898ae74bac11a",
        "views": "5fcf9cee2b149d56",
        "samples": "e8caabaa94ca0feb",
    },
    "4-animals-short-12-random": {
        "legal": "bff589167cdbf97e",
        "state": "f4244ef898cb5e07",
        "words": "8fdcbe874c93f46a",
        "errors": "97908c3d7a3bba9f",
        "views": "052953b4ad836fa3",
        "samples": "ef80a6684f0ec0c5",
    },
    "4-animals-long-11-random": {
        "legal": "06ba4097fed1ee74",
        "state": "353cf558af8402c7",
        "words": "8b88c4e774ea5ce9",
        "errors": "39c898ae74bac11a",
        "views": "ffe49a5fe6e3829a",
        "samples": "72c7e3bc0c6f27f7",
    },
    "4-animals-long-12-random": {
        "legal": "bff589167cdbf97e",
        "state": "c5b10c6566bfde69",
        "words": "8fdcbe874c93f46a",
        "errors": "97908c3d7a3bba9f",
        "views": "1de4ea162c0026a5",
        "samples": "629d9e1a0d6c94ed",
    },
    "3-classic-short-21-greedy": {
        "legal": "0040e0bd9c256723",
        "state": "214e186c9a7e21b1",
        "words": "77557be40fabd26c",
        "errors": "5cf733cda9a490bb",
        "views": "51f01199920dc4f0",
        "samples": "0f3197843a92b3b4",
    },
    "3-pitchfork-short-21-greedy": {
        "legal": "047e4ae4522d8866",
        "state": "68d9a00cc9b54c0e",
        "words": "7cb6b0782f3af64f",
        "errors": "16e5744382bc8039",
        "views": "cb22f23ea6192691",
        "samples": "1783850921c0d754",
    },
    "3-animals-short-21-greedy": {
        "legal": "07d0bb3f3bfe1339",
        "state": "908746f62ff3e99b",
        "words": "de607fd5db11cce7",
        "errors": "9129e6b0af2d56cf",
        "views": "70f2568d11a76b9d",
        "samples": "e414e444cbcb9bff",
    },
    "4-classic-short-21-greedy": {
        "legal": "374ccb6f61da7bbb",
        "state": "15801053f5430c98",
        "words": "dd76fbb25f3e343a",
        "errors": "864c01923d5c12f2",
        "views": "ee89739d37656f6a",
        "samples": "8e6c4770d418b751",
    },
    "4-pitchfork-short-21-greedy": {
        "legal": "9bd80fad232059bf",
        "state": "3203696a9d050604",
        "words": "5829c5c2da737192",
        "errors": "379477026bbc87c1",
        "views": "422a63a435db6345",
        "samples": "af0979a6e0eb7b58",
    },
    "4-animals-short-21-greedy": {
        "legal": "11d8e977b29e8a20",
        "state": "3e67490bc6b26d9c",
        "words": "9fbd0126b762ebfd",
        "errors": "4bab7e873c7a5702",
        "views": "e310bfdbe177608a",
        "samples": "1b6f9a9273d85959",
    },
    "3-animals-long-31-random": {
        "legal": "b61452b70a083fb5",
        "state": "77b94a47b0a69650",
        "words": "06da07d26dd66f4e",
        "errors": "c53a7317d9057edb",
        "views": "2b008034cbac2bf0",
        "samples": "594958b6fa3dc908",
    },
    "4-animals-long-31-random": {
        "legal": "d849a5127623c58a",
        "state": "cf6d1252bebd5bae",
        "words": "6c489ea0fafd4b9f",
        "errors": "66ed016c6e1f4155",
        "views": "54076d52dd5e18cc",
        "samples": "7e9cfd183c914dde",
    },
}


def _key(players: int, variant: str, length: str, seed: int, policy: str) -> str:
    return f"{players}-{variant}-{length}-{seed}-{policy}"


@pytest.mark.parametrize(("players", "variant", "length", "seed", "policy"), CASES)
def test_the_engine_plays_as_recorded(
    players: int, variant: str, length: str, seed: int, policy: str
) -> None:
    case = (players, variant, length, seed, policy)
    assert record(*case) == EXPECTED[_key(*case)]


if __name__ == "__main__":
    print("EXPECTED: dict[str, dict[str, str]] = {")
    for case in CASES:
        print(f"    {_key(*case)!r}: {record(*case)!r},")
    print("}")


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_siblings_played_from_one_position_match_a_fresh_replay(players: int, variant: str) -> None:
    """Many moves played from one position (as a search does) each give what the same move
    gives from that position read back from JSON (no cached legal moves: parsed and checked in
    full), and leave the position and each other alone."""
    rng = random.Random(players * 7 + len(variant))
    state = GAME.new(players, {"variant": variant, "length": "long"}, seed=players)
    assert isinstance(state, MarramState)
    ply = 0
    while state.outcome is None:
        legal = state.legal_moves()
        if ply % 7 == 3:
            before = _dump(state.to_json())
            children = [(m, state.play(m)) for m in rng.sample(legal, min(15, len(legal)))]
            children_json = [_dump(child.to_json()) for _, child in children]
            for (move, child), seen in zip(children, children_json, strict=True):
                fresh = MarramState.from_json(json.loads(before)).play(move)
                assert _dump(fresh.to_json()) == seen
                assert child.legal_moves() == fresh.legal_moves()
                if child.outcome is None:
                    reply = rng.choice(child.legal_moves())
                    assert _dump(child.play(reply).to_json()) == _dump(fresh.play(reply).to_json())
            assert _dump(state.to_json()) == before
            assert [_dump(child.to_json()) for _, child in children] == children_json
        state = state.play(rng.choice(legal))
        ply += 1
