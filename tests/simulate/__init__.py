"""Tests of feltlab.simulate."""
