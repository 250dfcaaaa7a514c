"""Bulgarian number formats over Django's own (django/conf/locale/bg/formats.py), which has the
thousands separator (a non-breaking space) but no grouping: 100000 chips read as "100 000"."""

NUMBER_GROUPING = 3
