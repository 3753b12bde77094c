"""scikit-learn's estimator checks for EMSCOClassifier (small population: the checks fit often)."""
from sklearn.utils.estimator_checks import parametrize_with_checks

from subsel.evolution import EMSCOClassifier

#: Checks that cannot apply to EMSCO, with the reason (also in the README).
EXPECTED_FAILED_CHECKS: dict[str, str] = {}


@parametrize_with_checks([EMSCOClassifier(population_size=6, max_iter=2, random_state=0)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
