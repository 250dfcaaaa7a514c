"""The room's presentation, in one place: the table's regions and the Jinja2 environment they are
rendered in, the log's wording, chip counts as the pages write them, and the one card drawn on
every page (the table, the hand history, the rules)."""
