"""The practice pages: a table against the computer (its commands are games.live.practice)."""
