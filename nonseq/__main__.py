"""Run the CLI with `python -m nonseq`."""

from nonseq.launch import main

main()
