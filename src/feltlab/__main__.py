"""``python -m feltlab`` and the ``feltlab`` program."""

import sys


def run() -> None:
    """Run a quick command's usual form without Typer (:mod:`feltlab.cli.quick`), or else
    the whole command line, imported with the garbage collector paused (start-up imports
    only create objects, and collecting them costs a tenth of the start-up)."""
    import gc

    gc.disable()
    from feltlab.cli.quick import quick_status
    from feltlab.cli.terminal import leave

    status = quick_status(sys.argv[1:])
    if status is not None:
        leave(status)
    try:
        from feltlab.cli.program import main
    finally:
        gc.enable()
    main()


if __name__ == "__main__":
    run()
