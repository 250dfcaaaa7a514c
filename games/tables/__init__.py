"""The table page and its socket: what a viewer of a table in play sees and sends."""
