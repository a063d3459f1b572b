"""Benchmarks: `python bench/NAME.py --help`; each has a smoke mode (`--limit N --json`) the suite runs."""
