"""The load test's steady-state figures count only the moves of their window."""

from __future__ import annotations

import pytest

from bench.service import Stats, figures, local_state


def test_figures_keep_to_the_window_and_count_a_move_when_its_next_email_arrived() -> None:
    stats = Stats()
    # posted at 1 (warm-up), 10, 11, 12 and 30 (drain); the move posted at 12 never got its email
    stats.submits = [(1.0, 0.5), (10.0, 0.010), (11.0, 0.030), (12.0, 0.020), (30.0, 0.9)]
    stats.to_next_email = [(1.0, 2.0), (10.0, 0.1), (11.0, 0.3), (30.0, 5.0)]
    stats.completed = [1.0, 10.0, 11.0, 30.0]

    steady = figures(stats, 5.0, 25.0)

    assert steady["seconds"] == 20.0
    assert steady["moves_posted"] == 3
    assert steady["end_to_end_per_second"] == pytest.approx(2 / 20.0)
    assert steady["submit_p50_ms"] == pytest.approx(20.0)
    assert steady["submit_p99_ms"] == pytest.approx(30.0, abs=0.5)
    assert steady["next_email_p99_ms"] == pytest.approx(300.0, abs=5)


def test_an_empty_window_reports_nothing_rather_than_failing() -> None:
    steady = figures(Stats(), 5.0, 4.0)
    assert steady["seconds"] == 0.0
    assert steady["end_to_end_per_second"] == 0.0
    assert steady["moves_posted"] == 0


def test_games_are_replayed_locally_only_when_the_hidden_seed_changes_nothing() -> None:
    assert local_state("gorami", {"board": 16}) is not None
    assert local_state("mmw", {}) is not None
    # Marram's tile bag is shuffled by the seed: its players take the API's legal moves.
    assert local_state("marram", {"variant": "classic", "length": "short"}) is None
