"""CLI command groups: each module parses, calls a service and prints. No logic lives here."""
