"""The Mini App's front end: its page and JSON API, served by the bot's own aiohttp server (docs/miniapp.md)."""
