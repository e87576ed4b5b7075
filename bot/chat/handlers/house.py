"""A group's own rules (docs/rules.md 20): `/rules` shows the rules in force with every value a group
may change and its key; `/rules set KEY=VALUE …` changes tonight's from the next hand (a ledger
event, undone with /undo); a rules file sent with the caption `/rules` is kept as the group's house
rules (and, during a night, played from the next hand); `/rules save NAME`, `/rules default NAME` and
`/rules drop NAME` keep, choose and forget house rules by name, and `/new … rules=NAME` opens a night
with them (or with a file of the operator's RULES_DIR).

Who may change them: the night's opener and the chat's admins. Every change is checked whole before
anything is written: one answer names every bad key and value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.chat.handlers.common import Context, Refusal, Upload, recorded_reply
from bot.chat.rule_words import read_changes
from bot.night.night import Night
from bot.night.records import HouseRules
from bot.text.replies import LIST, Joined, Reply, Response
from bot.views.house_rules import changeable, differences, kept_lines, short_names
from bot.views.lines import format_money
from bot.views.lines import rules as rules_lines
from engine.errors import EngineError
from engine.events import SetRules
from engine.preset import PRESET_NAMES, Preset, preset_from_dict, resolved_builtin
from engine.rule_keys import night_only_changes, read_file, rules_after

MAX_RULES_BYTES = 64 * 1024  # a rules file is a few KB; Telegram documents go to 20 MB
NAME = re.compile(r"^[\w-]{1,32}$")  # a house rule's name: one word, letters, digits, - and _
SAMPLE_STAKE = 100  # a preset shown outside a night: per 1 a flower
MAX_KEPT = 20  # house rules a group keeps: a handful in practice (each change stores them all)


# ---- finding rules by name --------------------------------------------------------------------


def operator_files(rules_dir: Path | None) -> list[str]:
    """The operator's rules files (RULES_DIR, or the console's folder) that read as rules, by their
    names without `.toml` (a folder may hold other TOML files: a project's pyproject.toml is no rules)."""
    if rules_dir is None or not rules_dir.is_dir():
        return []
    return sorted(path.stem for path in rules_dir.glob("*.toml") if path.is_file() and _reads_as_rules(path))


def _reads_as_rules(path: Path) -> bool:
    try:
        return read_file(path.read_text(encoding="utf-8"))[0] is not None
    except (OSError, UnicodeDecodeError):
        return False


def operator_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise Refusal(Reply("house.file_unread", {"name": path.name})) from None


def operator_file(rules_dir: Path | None, name: str) -> Path | None:
    """`NAME` or `NAME.toml` in the operator's folder, never a path out of it."""
    if rules_dir is None:
        return None
    folder = rules_dir.resolve()
    for candidate in (name, f"{name}.toml"):
        path = (folder / candidate).resolve()
        if path.is_relative_to(folder) and path.is_file():
            return path
    return None


def checked_text(text: str) -> dict[str, Any]:
    """A rules file's plain data; refused naming every bad key and value it holds."""
    raw, errors = read_file(text)
    if raw is None:
        raise Refusal(
            Reply("house.file_refused"), *(Reply(e.key, e.params) for e in errors), Reply("error.nothing_recorded")
        )
    return raw


async def house_of(context: Context) -> HouseRules:
    return await context.services.nights.house_rules(context.incoming.chat_id)


async def rules_named(context: Context, name: str) -> tuple[str, dict[str, Any]]:
    """Rules by name: a built-in preset, the group's own, or the operator's file. Refused with the
    names there are."""
    lowered = name.lower()
    if lowered in PRESET_NAMES:
        return lowered, resolved_builtin(lowered)
    house = await house_of(context)
    kept = house.find(name)
    if kept is not None:
        return kept, dict(house.rules[kept])
    path = operator_file(context.services.rules_dir, name)
    if path is not None:
        raw = checked_text(operator_text(path))
        return str(raw.get("name") or path.stem), raw
    known = [*PRESET_NAMES, *house.rules, *operator_files(context.services.rules_dir)]
    raise Refusal(Reply("preset.unknown", {"name": name, "known": ", ".join(dict.fromkeys(known))}))


async def opening_rules(context: Context, name: str | None) -> tuple[str, dict[str, Any]]:
    """What a night opens with: the rules named (`preset=` or `rules=`), else the group's default."""
    if name is not None:
        return await rules_named(context, name)
    default = (await house_of(context)).default
    if default is not None:
        return await rules_named(context, default)
    return "nanjing", resolved_builtin("nanjing")


# ---- who may ----------------------------------------------------------------------------------


def may_change(context: Context) -> bool:
    """The night's opener (the chat's latest night) and the chat's admins."""
    speaker, night = context.incoming.speaker, context.night
    return speaker.is_admin or (night is not None and bool(speaker.id) and speaker.id == night.row.opened_by)


def check_may_change(context: Context) -> None:
    if context.incoming.private:
        raise Refusal(Reply("house.group_only"))
    if not may_change(context):
        raise Refusal(Reply("house.not_allowed"))


# ---- the handler ------------------------------------------------------------------------------


async def rules(context: Context) -> Response:
    upload = context.incoming.upload
    if upload is not None:
        return await sent_file(context, upload)
    action = context.command.kind
    if action == "set":
        return await set_values(context)
    if action == "save":
        return await save(context)
    if action == "default":
        return await choose_default(context)
    if action == "drop":
        return await drop(context)
    return await show(context)


async def show(context: Context) -> Response:
    """The rules in force (or, named, any rules a night may open with), every value a group may
    change with its key, and the group's house rules by name."""
    night, word = context.night, context.command.word
    house = await house_of(context)
    if night is not None and not context.closed and not word:
        replies = tonight(night)
    else:
        _, raw = await (rules_named(context, word) if word else opening_rules(context, None))
        preset = preset_from_dict(raw)
        replies = [*described(preset, SAMPLE_STAKE, None), *changeable(preset)]
    replies += kept_lines(sorted(house.rules), house.default, operator_files(context.services.rules_dir))
    replies.append(Reply("house.how_to_change"))
    return Response(tuple(replies), context.language)


def described(preset: Preset, stake_cents: int, opened_with: Preset | None) -> list[Reply]:
    """The rules as /rules always said them; the header says when they were changed tonight."""
    lines = rules_lines(preset, stake_cents)
    if opened_with is not None and preset != opened_with:
        lines[0] = Reply("house.header_changed", {"name": preset.name, "stake": format_money(stake_cents)})
    elif preset.name not in PRESET_NAMES and not preset.description:
        lines[0] = Reply("house.header", {"name": preset.name, "stake": format_money(stake_cents)})
    return lines


def tonight(night: Night) -> list[Reply]:
    """Tonight's rules: as in force for the hand being played, what changed since the night opened,
    what the next hand changes, and the values a group may change."""
    preset, following = night.preset, night.next_preset
    replies = described(preset, night.stake_at(night.state.hand_no), night.opening_preset)
    if preset != night.opening_preset:
        replies.append(Reply("house.changed_tonight", {"name": night.opening_preset.name}))
        replies.extend(differences(night.opening_preset, preset))
    if following != preset:
        replies.append(Reply("house.from_next_hand", {"hand": night.state.hand_no + 1}))
        replies.extend(differences(preset, following))
    return [*replies, *changeable(preset)]


# ---- changing tonight's rules -----------------------------------------------------------------


def changing_night(context: Context) -> Night:
    check_may_change(context)
    night = context.night
    if night is None or context.closed:
        raise Refusal(Reply("house.set_needs_night"))
    return night


async def set_values(context: Context) -> Response:
    """`/rules set 跑=10 比下胡+=荒庄`: checked whole (every bad key and value named, nothing written),
    then one 改规则 event, from the next hand (this one if nothing was played in it yet)."""
    night = changing_night(context)
    read = read_changes(context.command.names)
    before = night.next_preset  # a change made earlier this hand waits for the next one too: on top of it
    errors = list(read.errors)
    for change in read.changes:  # each well-typed one on the rules, on its own: every bad value is named
        try:
            rules_after(before, SetRules((change,)))
        except EngineError as error:
            errors.append(
                Reply(
                    "house.value_refused", {"key": short_names()[change.key], "reason": Reply(error.key, error.params)}
                )
            )
    if errors:
        raise Refusal(Reply("house.refused"), *errors, Reply("error.nothing_recorded"))
    event = SetRules(read.changes)
    try:
        after = rules_after(before, event)
    except EngineError as error:
        raise Refusal(
            Reply("house.refused"), Reply(error.key, error.params), Reply("error.nothing_recorded")
        ) from error
    if after == before:
        raise Refusal(Reply("house.no_change"))
    return await record_change(context, night, event, before, after)


async def record_change(context: Context, night: Night, event: SetRules, before: Preset, after: Preset) -> Response:
    # the hand it counts from is the table's word: kept through every re-derivation (docs/rules.md 20)
    recorded = await night.record(context.line, replace(event, next_hand=night.state.begun))
    hand = next(int(n.params["hand"]) for n in recorded.played.notices if n.key == "table.rules_from")
    params = {"id": night.shown(recorded.event_id), "hand": hand}
    said = Reply("house.set_done_now" if hand == night.state.hand_no else "house.set_done", params)
    replies = [said, *differences(before, after), Reply("house.save_hint")]
    return recorded_reply(context, night, replies, moved_money=False)


# ---- a rules file -----------------------------------------------------------------------------


def file_text(upload: Upload) -> str:
    if upload.size > MAX_RULES_BYTES:
        raise Refusal(
            Reply(
                "house.file_too_big",
                {"name": upload.name, "size": upload.size // 1024, "most": MAX_RULES_BYTES // 1024},
            )
        )
    if not upload.fetched:
        raise Refusal(Reply("house.file_not_fetched", {"name": upload.name}))
    if upload.text is None:
        raise Refusal(Reply("house.file_unread", {"name": upload.name}))
    return upload.text


def name_for(typed: str | None, raw: Mapping[str, Any], file_name: str) -> str:
    """What a sent file is kept as: the name typed with it, else its own `name`, else its file's name
    (a copy of a built-in preset still says `name = "nanjing"`)."""
    stem = Path(file_name).stem
    for candidate in (typed, str(raw.get("name") or ""), stem):
        if candidate and NAME.match(candidate) and candidate.lower() not in PRESET_NAMES:
            return candidate
    raise Refusal(Reply("house.name_the_file", {"name": typed or str(raw.get("name") or stem)}))


async def sent_file(context: Context, upload: Upload) -> Response:
    """A rules file with the caption `/rules` (or `/rules NAME`): checked whole, kept as the group's
    house rules under its name; during a night also played from the next hand, a ledger event like
    `/rules set`, unless it changes what only a new night can (start points, chips)."""
    check_may_change(context)
    if context.command.kind is not None:
        raise Refusal(Reply("house.file_caption"))
    raw = checked_text(file_text(upload))
    name = name_for(context.command.word, raw, upload.name)
    raw = {**raw, "name": name}
    await keep(context, name, raw)
    said = Reply("house.file_kept", {"name": name})
    night = context.night
    if night is None or context.closed:
        return Response((said, Reply("house.open_with", {"name": name})), context.language)
    before, after = night.next_preset, preset_from_dict(raw)
    if night_only_changes(before, after):
        keys = Joined(tuple(night_only_changes(before, after)), LIST)
        return Response((said, Reply("house.file_next_night", {"name": name, "keys": keys})), context.language)
    if after == before:
        return Response((said, Reply("house.file_same")), context.language)
    response = await record_change(context, night, SetRules(whole=json.dumps(raw, ensure_ascii=False)), before, after)
    return replace(response, replies=(said, *response.replies))


# ---- house rules by name ----------------------------------------------------------------------


def one_name(context: Context, usage: str) -> str:
    names = context.command.names
    if len(names) != 1:
        raise Refusal(Reply(usage))
    return names[0]


def new_name(name: str) -> str:
    if not NAME.match(name) or name.lower() in PRESET_NAMES:
        raise Refusal(Reply("house.bad_name", {"name": name, "builtin": ", ".join(PRESET_NAMES)}))
    return name


async def keep(context: Context, name: str, raw: Mapping[str, Any]) -> None:
    house = await house_of(context)
    if house.find(name) is None and len(house.rules) >= MAX_KEPT:
        raise Refusal(Reply("house.too_many", {"most": MAX_KEPT}))
    await context.services.nights.keep_house_rules(context.incoming.chat_id, house.kept(name, raw))


async def save(context: Context) -> Response:
    """`/rules save NAME`: the rules the next hand is played by (tonight's, changes included; with no
    night open, what a bare /new opens with) kept as NAME."""
    check_may_change(context)
    name = new_name(one_name(context, "house.save_usage"))
    night = context.night
    if night is not None and not context.closed:
        raw = json.loads(night.next_preset.source)
    else:
        raw = (await opening_rules(context, None))[1]
    if raw.get("name") != name:  # the words of the rules it came from may no longer be true of it
        raw = {**raw, "name": name, "description": ""}
    await keep(context, name, raw)
    return Response((Reply("house.saved", {"name": name}), Reply("house.open_with", {"name": name})), context.language)


async def choose_default(context: Context) -> Response:
    """`/rules default NAME`: what a bare /new opens with (a built-in preset's name goes back to it)."""
    check_may_change(context)
    name = one_name(context, "house.default_usage")
    house = await house_of(context)
    if name.lower() in PRESET_NAMES:
        chosen = None if name.lower() == "nanjing" else name.lower()
        await context.services.nights.keep_house_rules(context.incoming.chat_id, house.with_default(chosen))
        return Response((Reply("house.default_set", {"name": name.lower()}),), context.language)
    kept = house.find(name)
    if kept is None:
        raise Refusal(
            Reply("house.no_such", {"name": name, "names": Joined(tuple(sorted(house.rules)) or ("—",), LIST)})
        )
    await context.services.nights.keep_house_rules(context.incoming.chat_id, house.with_default(kept))
    return Response((Reply("house.default_set", {"name": kept}),), context.language)


async def drop(context: Context) -> Response:
    check_may_change(context)
    name = one_name(context, "house.drop_usage")
    house = await house_of(context)
    kept = house.find(name)
    if kept is None:
        raise Refusal(
            Reply("house.no_such", {"name": name, "names": Joined(tuple(sorted(house.rules)) or ("—",), LIST)})
        )
    await context.services.nights.keep_house_rules(context.incoming.chat_id, house.dropped(kept))
    return Response((Reply("house.dropped", {"name": kept}),), context.language)


def check_undo(context: Context, kind: str) -> None:
    """Undoing a 改规则 is changing the rules: the night's opener and the chat's admins only."""
    if kind == "rules" and not may_change(context):
        raise Refusal(Reply("house.not_allowed"))
