"""Hypothesis settings for the engine tests: no deadlines (speed is measured in bench/, and a
loaded 2-core CI machine must not turn a slow example into a failure); derandomised on CI so a red
run can be reproduced."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "pbem",
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("pbem")
