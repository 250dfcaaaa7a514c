"""Hand history: a player's stored hands, each replayed step by step as they saw it, and its hand file."""
