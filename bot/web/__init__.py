"""The Mini App front end: the page beside the chat (its static files and tile artwork) and its JSON API."""
