"""NonSequitur: turn a queue of topics into researched, grounded articles."""

__version__ = "0.1.0"
