"""Backends: one QueueManager protocol, the embedded queue manager and real IBM MQ."""
