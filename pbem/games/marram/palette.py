"""The colours Marram is drawn in: terrain, creatures and the seats' tokens and marks."""

from __future__ import annotations

from pbem.games import drawing as d

TERRAIN = {"g": "#8cc56b", "s": "#ecd9a5"}
TERRAIN_EDGE = {"g": "#79b159", "s": "#dcc58c"}
# species -> (body, outline, pattern)
SPECIES = {
    "o": ("#f28c28", "#7f4310", "#c9661a"),
    "b": ("#2f6fde", "#11306e", "#1d4fb0"),
    "w": ("#ee9fb4", "#6e4034", "#c97a8e"),
}
SADDLE = "#a8566a"
PAPER = "#fbfaf7"  # behind the whole drawing, page and mail alike
# Seat colours avoid the terrain and creature colours: red, violet, white, black.
SEAT_COLOURS = ("#e03131", "#8e44ad", "#f8f9fa", "#212529")
SEAT_OUTLINES = ("#3b0a0a", "#2a0f35", "#212529", "#f8f9fa")
# A ring round every token and last-turn mark, against its outline, so it stands out on grass,
# sand and creatures alike (a white token's dark outline gets a white ring, and so on).
SEAT_HALOS = ("#ffffff", "#ffffff", "#ffffff", "#212529")


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def seat_outline(seat: int) -> str:
    return SEAT_OUTLINES[seat % len(SEAT_OUTLINES)]


def seat_halo(seat: int) -> str:
    return SEAT_HALOS[seat % len(SEAT_HALOS)]


def seat_ink(seat: int) -> str:
    """Text on the seat's colour."""
    return d.contrast_ink(seat_colour(seat))
