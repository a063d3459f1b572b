"""Run the CLI with `python -m nonseq`."""

from nonseq.cli import main

main()
