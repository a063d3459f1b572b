"""The recipe that rebuilds the support check's shipped files (nonseq/data/support_*), on the product's encoder.

`python -m training.support_head --help` lists the steps; docs/development.md gives the order.
"""
