"""Default agent names are made when first read, and are then the same names as ever."""
import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings

from subsel.models import ProblemBatch, SubsetSelectionProblem, write_lp, write_mps
from subsel.models._checks import default_names
from tests.strategies import problems


def _pair(n=5, **kw):
    """The same problem with lazy default names and with the default names given explicitly."""
    rng = np.random.default_rng(n)
    q, c = rng.random(n), rng.random(n)
    lazy = SubsetSelectionProblem(quality=q, cost=c, alpha=0.6, **kw)
    eager = SubsetSelectionProblem(quality=q, cost=c, alpha=0.6, names=[str(i) for i in range(n)], **kw)
    return lazy, eager


def test_default_names_are_the_indices_as_text():
    assert default_names(3) == ("0", "1", "2")
    assert default_names(0) == ()


def test_default_names_are_not_made_until_read():
    p = SubsetSelectionProblem.random(1000, 0.7, 0)
    assert "_default_names" not in p.__dict__
    assert p.names == default_names(1000)
    assert isinstance(p.names, tuple) and p.names is p.names  # made once, then cached


@settings(max_examples=50)
@given(problem=problems(n_max=10))
def test_lazy_names_equal_the_eager_default_names(problem):
    assert problem.names == tuple(str(i) for i in range(problem.n))
    given = problem.with_changes(names=[str(i) for i in range(problem.n)])
    assert given.names == problem.names


def test_given_names_are_kept():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, names=["a", "b"])
    assert p.names == ("a", "b")
    assert p.with_changes(alpha=0.5).names == ("a", "b")
    assert p.with_changes(names=None).names == ("0", "1")


def test_with_changes_keeps_default_names_lazy():
    p = SubsetSelectionProblem.random(50, 0.7, 1)
    _ = p.names
    q = p.with_changes(alpha=0.6)
    assert "_default_names" not in q.__dict__
    assert q.names == p.names


def test_csv_lp_and_mps_files_are_the_same_with_lazy_and_given_default_names(tmp_path):
    lazy, eager = _pair(6, capacity=[1, 2, 3, 1, 2, 3], budget=2.5, must_take=[1])
    for kind, write in (("csv", lambda p, path: p.to_csv(path)), ("lp", write_lp), ("mps", write_mps)):
        a, b = tmp_path / f"lazy.{kind}", tmp_path / f"eager.{kind}"
        write(lazy, a)
        write(eager, b)
        assert a.read_text() == b.read_text(), kind
    text = (tmp_path / "lazy.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in text[1:]] == [str(i) for i in range(6)]
    assert "x_5" in (tmp_path / "lazy.lp").read_text() and "x_5" in (tmp_path / "lazy.mps").read_text()
    back = SubsetSelectionProblem.from_csv(tmp_path / "lazy.csv", alpha=0.6)
    assert back.names == lazy.names
    assert lazy.to_dataframe()["name"].tolist() == list(eager.names)


@pytest.mark.parametrize("read_first", [False, True])
def test_pickle_and_copy_keep_the_default_names(read_first):
    p = SubsetSelectionProblem.random(20, 0.7, 2, R=2.0)
    if read_first:
        _ = p.names
    for clone in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
        assert clone.names == default_names(20)
        assert np.array_equal(clone.quality, p.quality) and clone.alpha == p.alpha and clone.R == p.R
        x = np.ones(20, dtype=np.int64)
        assert clone.evaluate(x) == p.evaluate(x)


def test_problems_compare_by_identity():
    lazy, eager = _pair(4)
    assert lazy == lazy and lazy != eager  # frozen, eq=False: equal only to itself


def test_must_lists_find_default_names_without_asking_for_all_names():
    p = SubsetSelectionProblem(quality=[0.9, 0.5, 0.8], cost=[0.1, 0.1, 0.1], alpha=0.7,
                               must_take=["2"], must_not_take=[0])
    assert p.must_take.tolist() == [2] and p.must_not_take.tolist() == [0]
    with pytest.raises(ValueError, match=r"must_take\[0\].*'7'"):
        SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, must_take=["7"])
    with pytest.raises(ValueError, match=r"agent 1 \('1'\) is in both must_take and must_not_take"):
        SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, must_take=[1],
                               must_not_take=["1"])


def test_evaluation_messages_name_default_agents():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, must_take=[1])
    ev = p.evaluate([1, 0])
    assert ev.violations == ("must_take: agent 1 ('1') has x = 0",)


def test_a_batch_of_one_lazy_problem_and_its_rows_keep_the_names():
    p = SubsetSelectionProblem.random(7, 0.7, 3)
    batch = ProblemBatch.from_problems([p])
    assert batch.names == default_names(7) and batch.row(0).names == default_names(7)


def test_given_names_are_still_checked():
    kw = dict(quality=[0.9, 0.5, 0.4], cost=[0.1, 0.1, 0.1], alpha=0.7)
    with pytest.raises(ValueError, match=r"names\[2\].*duplicates"):
        SubsetSelectionProblem(names=["a", "b", "a"], **kw)
    with pytest.raises(ValueError, match=r"names\[1\].*non-empty"):
        SubsetSelectionProblem(names=["a", " ", "b"], **kw)
    with pytest.raises(ValueError, match=r"names\[0\].*control"):
        SubsetSelectionProblem(names=["a\tb", "c", "d"], **kw)
    with pytest.raises(ValueError, match="names has 2 entries but quality has 3"):
        SubsetSelectionProblem(names=["a", "b"], **kw)
    with pytest.raises(TypeError, match="not one string"):
        SubsetSelectionProblem(names="abc", **kw)


def test_default_capacities_are_read_only_ones_shared_by_problems_of_one_size():
    a = SubsetSelectionProblem.random(40, 0.7, 5)
    b = SubsetSelectionProblem.random(40, 0.5, 6)
    assert a.capacity.dtype == np.int64 and a.capacity.tolist() == [1] * 40
    assert not a.capacity.flags.writeable and np.shares_memory(a.capacity, b.capacity)
    with pytest.raises(ValueError, match="read-only"):
        a.capacity[0] = 2
    c = SubsetSelectionProblem(quality=[0.5] * 40, cost=[0.1] * 40, alpha=0.5, capacity=[2] * 40)
    assert c.capacity.tolist() == [2] * 40 and a.capacity.tolist() == [1] * 40


def test_names_that_are_not_printable_but_hold_no_control_character_are_accepted():
    kw = dict(quality=[0.9, 0.5, 0.4], cost=[0.1, 0.1, 0.1], alpha=0.7)
    names = ["a\u00a0b", "zero\u200dwidth", "line\u2028sep"]  # not str.isprintable, no C0/C1 character
    assert SubsetSelectionProblem(names=names, **kw).names == tuple(names)
    with pytest.raises(ValueError, match=r"names\[2\].*control"):
        SubsetSelectionProblem(names=["a\u00a0b", "c", "next\x85line"], **kw)


def test_long_lists_with_a_boolean_are_refused_naming_the_index():
    q = [0.5] * 10_000
    q[9_876] = True
    with pytest.raises(TypeError, match=r"^quality\[9876\] must be a number, not a boolean"):
        SubsetSelectionProblem(quality=q, cost=[0.1] * 10_000, alpha=0.5)
    assert SubsetSelectionProblem(quality=[0.5] * 10_000, cost=(0.1,) * 10_000, alpha=0.5).n == 10_000
