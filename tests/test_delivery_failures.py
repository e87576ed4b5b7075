"""Delivery's transport-neutral failures (bot/telegram/delivery.py) and how the Telegram front end classifies
python-telegram-bot's errors (bot/telegram/sending.py): what is retried, what waits, and what is never
sent twice because it may already be in the chat."""

from __future__ import annotations

import datetime

import httpx
import pytest
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.telegram.delivery import Failure, RetryPolicy, with_retries
from bot.telegram.sending import telegram_failure

QUICK = RetryPolicy(attempts=4, first_backoff=0.001)


def caused(error: Exception, cause: Exception) -> Exception:
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (RetryAfter(datetime.timedelta(seconds=3)), Failure(wait=3.0)),
        (BadRequest("message text is empty"), Failure(retry=False)),
        (Forbidden("bot was kicked from the group chat"), Failure(retry=False)),
        (ChatMigrated(-100123), Failure(retry=False)),
        (NetworkError("Bad Gateway"), Failure()),  # Telegram (or its proxy) answered: nothing was done
        (caused(TimedOut(), httpx.ConnectTimeout("connect")), Failure()),  # never reached Telegram
        (caused(TimedOut("Pool timeout"), httpx.PoolTimeout("pool")), Failure()),
        (caused(NetworkError("httpx.ConnectError"), httpx.ConnectError("refused")), Failure()),
        (caused(TimedOut(), httpx.WriteTimeout("write")), Failure()),  # a request cut short is not acted on
        (caused(TimedOut(), httpx.ReadTimeout("read")), Failure(maybe_delivered=True)),  # sent, no answer
        (TimedOut(), Failure(maybe_delivered=True)),  # no cause known: assume it may have arrived
        (
            caused(NetworkError("httpx.RemoteProtocolError"), httpx.RemoteProtocolError("disconnected")),
            Failure(maybe_delivered=True),
        ),
        (RuntimeError("a bug"), None),  # not a transport failure: raised as it is
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else "",
)
def test_telegram_errors_read_as_delivery_failures(error: Exception, expected: Failure | None) -> None:
    assert telegram_failure(error) == expected


class Flaky:
    """A send that fails with the given errors, in order, then succeeds."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "sent"


async def test_a_new_message_that_may_have_arrived_is_not_sent_again() -> None:
    read_timeout = caused(TimedOut(), httpx.ReadTimeout("read"))
    send = Flaky(read_timeout)
    with pytest.raises(TimedOut):
        await with_retries(send, QUICK, telegram_failure, resend=False)
    assert send.calls == 1


async def test_an_edit_that_may_have_arrived_is_sent_again_since_it_changes_nothing_twice() -> None:
    edit = Flaky(caused(TimedOut(), httpx.ReadTimeout("read")))
    assert await with_retries(edit, QUICK, telegram_failure) == "sent" and edit.calls == 2


async def test_what_never_reached_telegram_is_sent_again_and_a_wrong_request_is_not() -> None:
    send = Flaky(caused(TimedOut(), httpx.ConnectTimeout("connect")), NetworkError("Bad Gateway"))
    assert await with_retries(send, QUICK, telegram_failure, resend=False) == "sent" and send.calls == 3
    wrong = Flaky(BadRequest("message text is empty"))
    with pytest.raises(BadRequest):
        await with_retries(wrong, QUICK, telegram_failure, resend=False)
    assert wrong.calls == 1


async def test_without_a_classification_every_error_is_raised_at_once() -> None:
    send = Flaky(NetworkError("Bad Gateway"))
    with pytest.raises(NetworkError):
        await with_retries(send, QUICK)
    assert send.calls == 1
