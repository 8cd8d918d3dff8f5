"""Evaluate: metrics against hand values (`metrics`), evaluation of retrievers on labeled questions (`evaluate`),
benchmark files (`benchmarks`), the scale sweep (`sweep`) and the performance report (`perf`). The top layer
below the command line.
"""
