"""``python -m vado``: the ``vado`` command (for an environment whose scripts are not on PATH)."""

from vado.cli.app import main

if __name__ == "__main__":
    main()
