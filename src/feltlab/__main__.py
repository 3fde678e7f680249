"""``python -m feltlab`` and the ``feltlab`` program."""

import os
import sys


def run() -> None:
    """Run a quick command's usual form without Typer (:mod:`feltlab.cli.quick`), or else
    the whole command line, imported with the garbage collector paused (start-up imports
    only create objects, and collecting them costs a tenth of the start-up)."""
    import gc

    gc.disable()
    from feltlab.cli.quick import quick_status

    status = quick_status(sys.argv[1:])
    if status is None:
        try:
            from feltlab.cli.program import main
        finally:
            gc.enable()
        main()
        return
    try:  # leave as the full command line does, without tearing the interpreter down
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        raise SystemExit(status) from None
    os._exit(status)


if __name__ == "__main__":
    run()
