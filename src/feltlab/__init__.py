"""feltlab: the reference rules engine, exact math and tools for flush-family table games."""

__version__ = "0.1.0"
