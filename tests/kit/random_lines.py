"""Random table lines for property tests: a pong, gang, penalty, win or draw between four players."""

from __future__ import annotations

from hypothesis import strategies as st

PLAYERS = ("Alice", "Bob", "Carol", "Dave")
player = st.sampled_from(PLAYERS)


@st.composite
def event_line(draw: st.DrawFn) -> str:
    actor, other = draw(player), draw(player)
    kind = draw(
        st.sampled_from(["pong", "gang", "self", "flower", "follow", "four", "custom", "win", "self_win", "draw"])
    )
    if kind in ("pong", "gang") and actor == other:
        other = PLAYERS[(PLAYERS.index(actor) + 1) % 4]
    return {
        "pong": f"{actor}: /pong {other}",
        "gang": f"{actor}: /gang {other}",
        "self": f"{actor}: /gang self",
        "flower": f"{actor}: /flowergang",
        "follow": f"{actor}: /penalty follow {other}",
        "four": f"{actor}: /penalty four {other}",
        "custom": f"{actor}: /penalty {other} {draw(st.integers(1, 60))}",
        "win": f"{actor}: /hu {PLAYERS[(PLAYERS.index(actor) + 2) % 4]} flowers={draw(st.integers(4, 9))}",
        "self_win": f"{actor}: /hu self flowers={draw(st.integers(4, 9))}",
        "draw": f"{actor}: /draw",
    }[kind]
