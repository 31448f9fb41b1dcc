"""Benchmarks: run on demand (`python -m benchmarks.<name>`); each prints its figures."""
