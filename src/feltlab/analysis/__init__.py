"""Exact math: PAR sheets, optimal strategies, strategy cards and the per-hand advisor."""
