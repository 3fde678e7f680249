"""Tests of feltlab.analysis."""
