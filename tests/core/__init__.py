"""Tests of feltlab.core."""
