"""bench/marram_worth.py, the fit behind Marram's worth: its regression finds weights it is given,
and its features read a position's scores, supplies and claims."""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path
from types import ModuleType

from pbem import games

REPO = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("marram_worth", REPO / "bench/marram_worth.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_regression_finds_the_weights_that_made_the_results() -> None:
    script = _script()
    rng = random.Random(1)
    truth = [0.4, -1.0, 2.0]
    xs = [[1.0, rng.gauss(0, 1), rng.gauss(0, 1)] for _ in range(4000)]
    logits = [sum(w * v for w, v in zip(truth, x, strict=True)) for x in xs]
    ys = [float(rng.random() < 1 / (1 + math.exp(-z))) for z in logits]
    weights, loss = script.fit(xs, ys)
    assert all(abs(w - t) < 0.2 for w, t in zip(weights, truth, strict=True)), weights
    assert 0 < loss < math.log(2)


def test_standard_errors_shrink_as_the_root_of_the_positions() -> None:
    script = _script()
    rng = random.Random(2)
    truth = [0.2, 1.0]
    errors = []
    for n in (1000, 4000):
        xs = [[1.0, rng.gauss(0, 1)] for _ in range(n)]
        ys = [float(rng.random() < 1 / (1 + math.exp(-(0.2 + x[1])))) for x in xs]
        weights, _ = script.fit(xs, ys)
        errors.append(script.standard_errors(xs, weights))
        assert all(abs(w - t) < 4 * e for w, t, e in zip(weights, truth, errors[-1], strict=True))
    # Four times the positions, half the error (the ridge aside).
    assert all(1.8 < a / b < 2.2 for a, b in zip(errors[0], errors[1], strict=True))


def test_features_read_scores_supplies_and_claims_on_unfinished_features() -> None:
    script = _script()
    state = games.get("marram").new(2, {}, 3)
    first = script.features(state)
    assert first[0][:5] == [0, 1, 1, 1, 3] and first[1][:5] == [0, 1, 1, 1, 3]
    assert not any(first[0][5:]) and len(first[0]) == len(script.NAMES)
    rng = random.Random(3)
    claimed = False
    for _ in range(40):
        claims = [m for m in state.legal_moves() if " boot " in m]
        state = state.play(rng.choice(claims or state.legal_moves()))
        if state.outcome is not None:
            break
        rows = script.features(state)
        held = sum(any(row[5:]) for row in rows)
        claimed = claimed or held > 0
        for seat, row in enumerate(rows):
            assert row[0] == state.scores()[seat]
    assert claimed, "forty actions that claim leave some unfinished feature held"
