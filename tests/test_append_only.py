"""bot/night/append_only.py: the fold's history grows without copies, and a view never changes under a reader."""

from __future__ import annotations

import pytest

from bot.night.append_only import AppendOnlyView


def keyed(item: tuple[int, str]) -> tuple[int]:
    return (item[0],)


def test_a_chain_of_additions_shares_one_list() -> None:
    view: AppendOnlyView[int] = AppendOnlyView()
    views = [view]
    for n in range(5):
        view = view.plus(n)
        views.append(view)
    assert list(view) == [0, 1, 2, 3, 4]
    # every earlier view still shows its own prefix: a reader holding one sees no later item
    assert [list(v) for v in views] == [[], [0], [0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4]]
    assert view._store is views[1]._store  # no copy along the chain


def test_checking_then_recording_the_same_line_does_not_branch() -> None:
    night = AppendOnlyView([1, 2]).plus(3)
    checked = night.plus(99)  # a line checked against the night and dropped
    recorded = night.plus(4)  # the line recorded instead
    following = recorded.plus(5)  # settles 3 again: found already in the shared list
    assert list(checked) == [1, 2, 3, 99]
    assert list(following) == [1, 2, 3, 4, 5]
    assert following._store is night._store


def test_a_real_branch_copies_its_prefix_and_leaves_the_other_alone() -> None:
    base = AppendOnlyView([1]).plus(2)
    left = base.plus(10).plus(11)  # settles 10 after [1, 2]
    right = base.plus(20).plus(21)  # 20 after the same prefix: branches off
    assert list(left) == [1, 2, 10, 11]
    assert list(right) == [1, 2, 20, 21]
    assert list(left.plus(12)) == [1, 2, 10, 11, 12]
    assert list(base) == [1, 2]


def test_reads_like_a_tuple() -> None:
    view = AppendOnlyView([1, 2, 3]).plus(4)
    same = (1, 2, 3, 4)
    assert len(view) == 4
    assert [view[i] for i in range(-4, 4)] == [same[i] for i in range(-4, 4)]
    assert view[1:3] == same[1:3] and view[::-1] == same[::-1] and view[5:] == ()
    assert list(reversed(view)) == [4, 3, 2, 1]
    assert view == same and view == AppendOnlyView(same) and view != (1, 2, 3)
    with pytest.raises(IndexError):
        view[4]
    with pytest.raises(IndexError):
        view[-5]
    assert list(reversed(AppendOnlyView[int]())) == [] and not AppendOnlyView[int]()


def test_first_finds_the_first_item_with_a_key_in_this_view_only() -> None:
    base = AppendOnlyView([(1, "a"), (2, "b"), (1, "c")], keys=keyed)
    longer = base.plus((3, "d"))
    assert longer.first(1) == (1, "a")  # the first match wins, as in order
    assert longer.first(3) == (3, "d")  # the view's own last item
    assert longer.plus((4, "e")).first(4) == (4, "e")
    assert base.first(3) is None  # the index the longer view built does not leak into this one
    assert base.first(4) is None and longer.first(9) is None
