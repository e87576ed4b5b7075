"""The ledger's rows and values: what bot/store/ledger.py reads and appends, as plain frozen data.

They hold no connection and do no I/O, so every layer above the store may name them without reaching
the ledger itself (only the night layer and the store read or write it). `DuplicateUpdate` is here
too: the ledger's one refusal of an append, which the command layer answers (a repeated update).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from bot.text.vocabulary import fold
from engine.settlement import Payment


@dataclass(frozen=True)
class Seat:
    name: str
    user_id: str | None = None  # Telegram user id, or None for a guest seated by name
    username: str | None = None


@dataclass(frozen=True)
class NightRow:
    id: int
    chat_id: str
    preset_name: str
    preset_json: str
    stake_cents: int
    seats: tuple[Seat, ...]
    dealer: int
    opened_by: str
    created_at: str
    number: int = 1  # the chat's own count: its first night is 1 whatever other chats did
    ids_through: int = 0  # its rows up to this id are numbered by their id (older code: bot/night/log_index.py)


@dataclass(frozen=True, slots=True)
class EventRow:
    """A row of a night's log as a night holds it in memory: the columns its logic reads, with the
    payload held as its reader decoded it (`body`: bot/night/codec.py `decode_body` makes it a table
    event, a fix, a seat or stake change; a reader that decodes nothing holds the payload's text).
    What was typed and when it was recorded are not held (a night holds thousands of rows): a view
    that shows them reads them from the ledger (`LineText`)."""

    id: int
    night_id: int
    hand_no: int
    kind: str
    actor: int | None
    speaker: str
    reverses: int | None
    body: object = None


@dataclass(frozen=True, slots=True)
class LineText:
    """What was typed for a row, and when the ledger recorded it: read when a view shows them
    (/history, /export, an undo's echo) or a handler reads a line again (an edit read as a fix)."""

    raw_text: str
    created_at: str


@dataclass(frozen=True, slots=True)
class PaymentRow:
    event_id: int
    payer: int
    payee: int
    amount: int
    money_cents: int
    reason: str


@dataclass(frozen=True)
class NewEvent:
    """An event to append: what happened, in which hand, and the payments it makes."""

    hand_no: int
    kind: str
    actor: int | None
    payload: str
    payments: tuple[Payment, ...] = ()
    reverses: int | None = None
    stake_cents: int | None = None  # money per unit for these payments, when not the append's stake


@dataclass(frozen=True)
class TallyRows:
    """A night's running tally by hand, as the ledger keeps it (bot/night/tally.py): (hand, player,
    net) rows, added to as hands close, and the hands played 比下胡."""

    nets: tuple[tuple[int, int, int], ...] = ()
    doubled: tuple[int, ...] = ()


@dataclass(frozen=True)
class StoredTally:
    """A night's running tally as stored: written after event `last_event_id`, in `version`."""

    last_event_id: int
    version: str
    figures: str
    hands: TallyRows


@dataclass(frozen=True)
class TallyUpdate:
    """What a closed hand adds to the night's stored tally, if the stored one is the one it adds to
    (written after event `after`, in `version`): its figures now, and rows to add by hand."""

    version: str
    after: int
    figures: str
    hands: TallyRows = TallyRows()


@dataclass(frozen=True)
class NightMarks:
    """A night of a chat as the tab sees it before reading it: see `Ledger.night_marks`."""

    night_id: int
    number: int
    last_event_id: int
    closed: bool
    stored: tuple[str, int, str] | None  # (version, built after event, figures) when stored
    summed: bool = False  # its per-person rows (`night_people`) are stored beside those figures


@dataclass(frozen=True)
class PersonNightRow:
    """One person's night as a row a period's figures sum (`night_people`): `person` is the node
    `bot.views.stats.Persons` starts from (`u:<account>` or `n:<folded name>`)."""

    night_id: int
    person: str
    amount: int
    money_cents: int
    hands: int
    wins: int
    self_draws: int
    deal_ins: int
    biggest: int  # the biggest win's total (0: no win)

    @property
    def counts(self) -> tuple[int, int, int]:
        """Self-draws, deal-ins and the biggest win, as the ledger stores them after the wins."""
        return self.self_draws, self.deal_ins, self.biggest


# A night's stored figures: (night, version, built after event, figures, its rows per person).
StoredFigures = tuple[int, str, int, str, tuple[PersonNightRow, ...]]


@dataclass(frozen=True)
class TabEventRow:
    id: int
    kind: str  # paid, settled, undo
    payload: str
    speaker: str
    reverses: int | None
    created_at: str


@dataclass(frozen=True)
class SeasonEventRow:
    id: int
    kind: str  # new, end, undo (bot/store/seasons.py)
    payload: str
    speaker: str
    reverses: int | None
    created_at: str


@dataclass(frozen=True)
class SpanSums:
    """A span of a chat's closed nights summed: how many nights, and per person (as stored: an account
    or a folded name, which `bot.views.stats.Persons` joins) their sums, `night_id` holding how many
    nights they played in it."""

    nights: int
    people: tuple[tuple[str, PersonNightRow], ...]


class DuplicateUpdate(Exception):
    """The update_key was recorded before: the command must not be applied again."""


@dataclass(frozen=True)
class HouseRules:
    """A group's house rules: name → the rules' plain data, and the one a bare `/new` opens with."""

    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    default: str | None = None  # a kept name or a built-in preset's; None: nanjing

    def find(self, name: str) -> str | None:
        """The kept name `name` stands for (张三's `Ours` is `ours`; 規則 is 规则), if any."""
        wanted = fold(name)
        return next((kept for kept in self.rules if fold(kept) == wanted), None)

    def kept(self, name: str, raw: Mapping[str, Any]) -> HouseRules:
        """These rules with `raw` kept as `name` (replacing a rule of that name)."""
        rules = {kept: body for kept, body in self.rules.items() if fold(kept) != fold(name)}
        rules[name] = raw
        default = name if self.default is not None and fold(self.default) == fold(name) else self.default
        return HouseRules(MappingProxyType(rules), default)

    def dropped(self, name: str) -> HouseRules:
        rules = {kept: body for kept, body in self.rules.items() if fold(kept) != fold(name)}
        default = None if self.default is not None and fold(self.default) == fold(name) else self.default
        return HouseRules(MappingProxyType(rules), default)

    def with_default(self, name: str | None) -> HouseRules:
        return replace(self, default=name)


@dataclass(frozen=True)
class StoredExport:
    """A night's stored rows: the code version that wrote them, the event they were built after,
    and the rows themselves (bot/views/export.py encodes and reads them)."""

    night_id: int
    version: str
    last_event_id: int
    rows: str
