"""Tests of feltlab.present."""
