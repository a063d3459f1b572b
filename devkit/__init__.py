"""Helpers the tests and the benches share: local servers, wire-format fakes, child processes."""
