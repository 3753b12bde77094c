"""Shared pytest configuration: hypothesis profile without deadlines (solver timings vary)."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "subsel", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "subsel"))

# `exact` switches to its compiled kernel once a process has solved JIT_AFTER small problems; the
# suite solves thousands, so the default path stays the numpy one here and the tests of the compiled
# kernel ask for it (jit=True): every test knows which path it checks.
import subsel.solvers.exact as _exact  # noqa: E402

_exact.JIT_AFTER = 10 ** 12
