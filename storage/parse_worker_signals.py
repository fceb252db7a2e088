"""Imported by the parse workers' fork server only (`storage.isolated.PRELOAD`), never by
the serving process: it makes SIGINT ignored there before the fork server sets its own
handlers, so the handlers it gives back to each worker it forks ignore SIGINT too.

A terminal's Ctrl-C reaches every process of its group. A worker forked a moment before
still imports its `__main__` (the `floorgate` script: seconds on a loaded machine) before
any initializer of ours runs, and with Python's default handler it died there printing a
`KeyboardInterrupt` traceback; the serving process stops its workers as it exits."""

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
