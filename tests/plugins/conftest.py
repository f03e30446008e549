"""Plugins are registered per test: each test builds its own host (no global state)."""
