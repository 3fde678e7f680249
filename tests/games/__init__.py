"""Tests of feltlab.games."""
