"""Tests of feltlab.games.high_card_flush."""
