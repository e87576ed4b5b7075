"""The command layer's handlers, one module per feature; `bot.chat.service.Referee` dispatches to them."""
