"""The ``nucleo`` command line: inspect the tools a process has.

Only the console script imports this package; ``import nucleo_core`` never does, so click and
rich cost nothing to a program that merely uses the framework.
"""

from nucleo_core.cli.app import main

__all__ = ["main"]
