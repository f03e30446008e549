"""The dead-letter queue handler: IBM's runmqdlq rules tables (``rules``), which rule applies
to a message (``match``)."""
