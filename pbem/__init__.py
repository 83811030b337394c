"""pbem: a play-by-email service for slow board games."""

__version__ = "0.1.0"
