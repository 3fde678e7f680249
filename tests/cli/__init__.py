"""Tests of feltlab.cli."""
