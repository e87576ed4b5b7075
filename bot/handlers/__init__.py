"""The command layer's handlers, one module per feature; `bot.service.Referee` dispatches to them."""
