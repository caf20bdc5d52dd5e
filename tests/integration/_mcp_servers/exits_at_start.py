"""A server that exits at start, saying why on stderr (as a misconfigured server does)."""

import sys

print("starting the demo server", file=sys.stderr)
print("fatal: DEMO_API_KEY is not set", file=sys.stderr)
sys.exit(3)
