"""An immutable sequence that grows by one item in constant time: a night's fold gains an event per
line, and copying the fold's history at every line made recording cost grow with the night.

`AppendOnlyView` is a view of the first `length` items of a list that is only ever appended to (never
changed in place, never shortened), plus at most one item of its own (`tail`). Adding an item first
settles the tail into the shared list (an append, when nobody has extended the list past this view
yet), so a chain of additions shares one list. A view's items never change under it, so a reader
holding an older fold never sees a newer or half-applied event. Two views may extend the same one
(a line checked, then recorded): the first to settle a tail appends it, and the second finds that
very item already there; only a real branch (two different items after the same prefix, then a
further addition to one of them) copies the prefix once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Generic, TypeVar, overload

T = TypeVar("T")

Keys = Callable[[T], Iterable[Hashable]]


def _no_keys(item: object) -> tuple[Hashable, ...]:
    return ()


def same_items(mine: Sequence[object], other: object) -> bool:
    """A log read as a list is equal to any sequence with the same items in the same order (and
    NotImplemented against what is no sequence, so Python asks the other side)."""
    if not isinstance(other, Sequence) or isinstance(other, str | bytes):
        return NotImplemented  # type: ignore[no-any-return]  # (as __eq__ may)
    return len(mine) == len(other) and all(a == b for a, b in zip(mine, other, strict=True))


class _Store(Generic[T]):
    """The shared list, and the index of the first item with each key (built as far as asked)."""

    __slots__ = ("firsts", "indexed", "items", "keys")

    def __init__(self, items: list[T], keys: Keys[T]) -> None:
        self.items = items
        self.keys = keys
        self.firsts: dict[Hashable, int] = {}
        self.indexed = 0

    def first(self, key: Hashable, length: int) -> int | None:
        """Where the first of the first `length` items with this key is (items never change, so
        the index is only ever extended)."""
        while self.indexed < length:
            for found in self.keys(self.items[self.indexed]):
                self.firsts.setdefault(found, self.indexed)
            self.indexed += 1
        at = self.firsts.get(key)
        return at if at is not None and at < length else None


class AppendOnlyView(Sequence[T]):
    __slots__ = ("_length", "_store", "_tail")

    def __init__(self, items: Iterable[T] = (), keys: Keys[T] = _no_keys) -> None:
        """A view of `items` (copied once); `keys` names what `first` looks items up by."""
        self._store: _Store[T] = _Store(list(items), keys)
        self._length = len(self._store.items)
        self._tail: tuple[T] | None = None  # a 1-tuple, so that any T (None too) can be a tail

    @classmethod
    def _view(cls, store: _Store[T], length: int, tail: tuple[T] | None) -> AppendOnlyView[T]:
        view: AppendOnlyView[T] = cls.__new__(cls)
        view._store, view._length, view._tail = store, length, tail
        return view

    def _settled(self) -> tuple[_Store[T], int]:
        """The shared list with this view's tail in it, and how many of its items are this view's."""
        store, length = self._store, self._length
        if self._tail is None:
            return store, length
        (tail,) = self._tail
        items = store.items
        if len(items) == length:
            items.append(tail)
        elif items[length] is not tail:  # another item was added after the same prefix: branch off
            store = _Store([*items[:length], tail], store.keys)
        return store, length + 1

    def plus(self, item: T) -> AppendOnlyView[T]:
        """This sequence and one more item (constant time, amortized)."""
        store, length = self._settled()
        return AppendOnlyView._view(store, length, (item,))

    def first(self, key: Hashable) -> T | None:
        """The first item with this key (in order), or None."""
        at = self._store.first(key, self._length)
        if at is not None:
            return self._store.items[at]
        if self._tail is not None and key in self._store.keys(self._tail[0]):
            return self._tail[0]
        return None

    def build_index(self) -> None:
        """Index every item now: a fold built off the event loop is indexed there too, so that the
        loop's first lookup in a long night is not a walk through it."""
        self._store.first(None, self._length)

    def __len__(self) -> int:
        return self._length + (self._tail is not None)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        at = index + len(self) if index < 0 else index
        if 0 <= at < self._length:
            return self._store.items[at]
        if self._tail is not None and at == self._length:
            return self._tail[0]
        raise IndexError(index)

    def __iter__(self) -> Iterator[T]:
        yield from islice(self._store.items, self._length)
        if self._tail is not None:
            yield self._tail[0]

    def __reversed__(self) -> Iterator[T]:
        if self._tail is not None:
            yield self._tail[0]
        items = self._store.items
        for at in range(self._length - 1, -1, -1):
            yield items[at]

    def __eq__(self, other: object) -> bool:
        return same_items(self, other)

    __hash__ = None  # type: ignore[assignment]  # equal to other sequences by content, so not hashable

    def __repr__(self) -> str:
        return f"AppendOnlyView({list(self)!r})"
