"""Split a multi-leg booking request into one request per leg."""

import sys

for leg in sys.stdin.read().split(";"):
    print(leg.strip())
