"""One grammar row per command (bot/chat/grammar.py `GRAMMARS`): its names, grammar, rights and help; its
handler and menus are its row in the one table, bot/chat/commands.py `COMMANDS`. Adding a command is its
grammar row, its row in the table, its handler and its catalog lines: nothing else keyed by command names
may drift from the table."""

from __future__ import annotations

from bot.chat import commands
from bot.chat.grammar import GRAMMAR_BY_NAME as SPEC_BY_NAME
from bot.chat.grammar import GRAMMARS as COMMANDS
from bot.chat.lexicon import UNKNOWN
from bot.chat.parser import asks_only, parse
from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from engine.errors import EngineError
from tests.kit.harness import Table


def test_every_command_has_exactly_one_row_in_the_one_table() -> None:
    # the one table (bot/chat/commands.py) names each grammar once, in the grammar's order
    assert [row.grammar for row in commands.COMMANDS] == list(COMMANDS)
    assert commands.handler_of(UNKNOWN) is not None and commands.handler_of("nosuch") is None


def test_every_command_is_in_a_menu_or_only_in_help_by_its_row() -> None:
    # the menus per scope are tests/test_help_and_menus.py's; here: every row names its menus and its
    # place in /help, and none of the three menus lists a command twice
    for which in commands.Menu:
        names = [spec.name for spec in commands.menu(which)]
        assert len(names) == len(set(names)), which
    assert {row.name for row in commands.COMMANDS if row.section is None} == {"new", "join", "help"}


def test_no_two_commands_share_a_slash_name() -> None:
    aliases = [alias for spec in COMMANDS for alias in spec.slash]
    assert len(aliases) == len(set(aliases))


def test_each_row_reads_its_own_example() -> None:
    for spec in COMMANDS:
        if not spec.example.startswith("/"):
            continue
        command = parse(spec.example, ("Alice", "Bob", "Carol", "Dave"))
        assert command is not None, spec.example
        # the added and concealed gang's help shows them as `/gang add`, `/gang self`
        assert command.name == spec.name or (spec.name in ("added_gang", "concealed_gang") and command.name == "gang")


def test_questions_claim_no_seat_and_table_events_do() -> None:
    # an account with no seat that asks /score is answered; one that records 碰 claims its seat first
    assert not SPEC_BY_NAME["score"].claims_a_seat
    assert not SPEC_BY_NAME["lang"].claims_a_seat
    assert SPEC_BY_NAME["pong"].claims_a_seat
    assert SPEC_BY_NAME["join"].seats_itself


def test_a_command_with_too_many_words_is_refused_not_trimmed() -> None:
    for spec in COMMANDS:
        if spec.most_words is None or not spec.slash[0].isascii():
            continue
        words = " ".join(["1"] * (spec.most_words + 1))
        try:
            parse(f"/{spec.slash[0]} {words}")
        except Exception as error:  # EngineError: command.extra_args
            assert getattr(error, "key", None) == "command.extra_args", spec.name
        else:
            raise AssertionError(f"/{spec.slash[0]} {words} was read")


def test_a_summary_with_words_it_cannot_use_names_them_all() -> None:
    try:
        parse("/summary extra words")
    except EngineError as error:
        assert error.key == "command.extra_args" and error.params == {"extra": "extra words"}
    else:
        raise AssertionError("/summary extra words was read")


def test_a_question_is_known_without_the_table() -> None:
    """The Telegram front end skips the admin lookup for a question (`asks_only`): anyone may ask."""
    for line in ("/score", "/summary", "/summary@RefBot", "查分", "结算", "/stats", "/me", "/rules"):
        assert asks_only(line), line
    for line in ("/new A B C D", "碰 李四", "/undo", "/board each", "查分?", "/lang en", "hello", "/nosuch"):
        assert not asks_only(line), line


async def test_a_question_answers_alike_whoever_asks(referee: Referee) -> None:
    """What lets a front end skip the admin lookup for a question: no question's answer depends on
    the asker's rights (a chat admin and a stranger, neither seated, get the same reply)."""
    table = Table(referee, "group")
    # 王五 花杠 (docs/rules.md: 6 from each other seat), then the hand is won: there is something to show
    await table.play("张三: 开局 张三 李四 王五 赵六\n王五: 花杠\n李四: 胡 自摸 123m 456m 789m 12p 55s +3p 花1")
    for spec in COMMANDS:
        if not spec.looks_only:
            continue
        answers = []
        for admin in (True, False):
            asker = Speaker(id="stranger", name="Mallory", is_admin=admin)
            answers.append(await referee.handle(Incoming("group", asker, spec.example, f"{spec.name}:{admin}")))
        assert answers[0] is not None and answers[0] == answers[1], spec.name
