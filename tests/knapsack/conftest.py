"""The knapsack kernel's tests (the compiled core search against brute force, exact dynamic
programs and the published optima): every one is marked ``slow``, so that a developer's inner loop
can leave them out (``pytest -m "not slow"``); CI runs them."""
from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.slow)
