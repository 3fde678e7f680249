"""Tests of feltlab.protect."""
