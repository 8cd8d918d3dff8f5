import sys

from .cli import main

if __name__ == "__main__":  # never on import
    sys.exit(main())
