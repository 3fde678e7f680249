"""Tests of feltlab.games.nine_card_flush."""
