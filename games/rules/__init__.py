"""The rules, the FAQ, the hand calculator and the fair-deck page, their numbers from the engine."""
