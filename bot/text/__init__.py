"""The words of a reply: message keys and the catalogs' vocabulary."""
