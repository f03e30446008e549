"""What operators do, written once against the QueueManager protocol (CLI and TUI share it)."""
