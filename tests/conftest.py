"""Shared pytest configuration: hypothesis profile without deadlines (solver timings vary)."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "subsel", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "subsel"))
