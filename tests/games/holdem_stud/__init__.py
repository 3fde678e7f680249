"""Tests of feltlab.games.holdem_stud."""
