"""Tables in play: the versioned state store, the turn clock, and (later) the table service."""
