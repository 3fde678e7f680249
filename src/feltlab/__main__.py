"""``python -m feltlab`` and the ``feltlab`` program."""


def run() -> None:
    """Import the command line with the garbage collector paused (start-up imports only
    create objects, and collecting them costs a tenth of the start-up), then run it."""
    import gc

    gc.disable()
    try:
        from feltlab.cli import main
    finally:
        gc.enable()
    main()


if __name__ == "__main__":
    run()
