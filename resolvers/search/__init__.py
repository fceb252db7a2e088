"""Search and autocomplete of places (issue 47): the words of a venue, its index per
asset, and the `search` field."""
