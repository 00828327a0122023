import sys

from detente.cli import main

sys.exit(main())
