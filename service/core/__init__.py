"""The pure domain: folding, deciding, match lifecycle, randomness.

Nothing in this package imports Flask, Redis or RQ, so the same code runs in
the API, in a worker, in a test and in a benchmark.
"""
