"""The Textual console: screens, widgets, themes. Calls ops/ only."""
