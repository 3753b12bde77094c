"""scikit-learn's estimator checks for CSTCClassifier (a shallow tree and few passes: the checks fit often)."""
from sklearn.utils.estimator_checks import parametrize_with_checks

from subsel.evolution import CSTCClassifier


@parametrize_with_checks([CSTCClassifier(depth=2, max_sweeps=3, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
