import sys

from .cli import main

if __name__ == "__main__":  # never on import (a spawned worker process imports its parent's main module)
    sys.exit(main())
