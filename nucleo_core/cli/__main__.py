"""``python -m nucleo_core.cli``: the ``nucleo`` console script, without the script."""

from nucleo_core.cli.app import main

if __name__ == "__main__":
    main()
