"""Benchmarks (run from the repository root: ``python -m bench.engine_bench``)."""
