"""Inputs that reached a player as an internal error (issue 21 item 5): each gets a clear answer."""

from __future__ import annotations

from bot.chat.service import Incoming, Referee
from bot.night.seating import Speaker
from bot.text.replies import render_response
from locales import Translator
from tests.kit.harness import Table

BROKEN = "something went wrong"


async def said(referee: Referee, chat: str, speaker: Speaker, text: str, private: bool = False) -> str:
    response = await referee.handle(Incoming(chat, speaker, text, None, private))
    assert response is not None
    return render_response(response, Translator("en"))


async def test_summary_after_a_player_left_at_zero(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C\nAlice: /join\n/unseat Alice\nD: /join\nB: /flowergang")
    out = await table.say("/summary")
    assert BROKEN not in out and "Nothing was recorded" not in out
    # B's flower gang, 6 from each of A, C, D; Alice sat at 0 and is not listed
    assert "B: won 0" in out and "Alice" not in out.split("who pays whom")[-1]


async def test_me_after_join_unseat_and_rejoin(referee: Referee) -> None:
    opener = Speaker(id="u1", name="A", language="en")
    eve = Speaker(id="u5", name="Eve", language="en")
    await said(referee, "g", opener, "/new A B C")
    await said(referee, "g", eve, "/join")
    await said(referee, "g", opener, "/unseat Eve")
    await said(referee, "g", opener, "/unseat C")  # C leaves at 0: no longer a player of the night
    await said(referee, "g", eve, "/join")
    await said(referee, "g", Speaker(id="u6", name="Fay", language="en"), "/join")
    await said(referee, "g", opener, "/flowergang Fay")
    out = await said(referee, "private-5", eve, "/me", private=True)
    # Fay's flower gang: 6 from each other seat, Eve among them: Eve −6 (not Fay's +18)
    assert BROKEN not in out and "Eve: 1 night, net -6" in out


async def test_fix_with_a_bare_meld_or_penalty_line_is_refused(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /pong C\nB: /gang D 5s\nB: /penalty follow C")
    before = await table.balances()
    for line in ("/fix 2 /pong", "/fix 3 /gang", "/fix 4 /penalty"):
        out = await table.say(line)
        assert "fix takes an event number and the corrected line" in out, line
    assert await table.balances() == before


async def test_a_flow_token_too_long_or_from_the_future_is_stale(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D")
    for token in ("~t" + "9" * 400, "~t99999999"):
        out = await table.say(f"/penalty {token}")
        assert ("expired" in out or "cannot be read" in out) and BROKEN not in out
    assert await table.balances() == {"A": 0, "B": 0, "C": 0, "D": 0}


async def test_a_correction_breaking_a_later_win_names_the_meld(table: Table) -> None:
    table.language = "en"
    await table.play("/new A B C D\nB: /pong C 7p\nB: /hu D 123m456m789m5p[777p]+5p flowers=4")
    out = await table.say("/fix 2 /pong C 8p")
    assert "{" not in out and "#2 pong 8p is not in the winning hand" in out
    assert "Nothing was recorded" in out
