"""Development-only tools (no app code): shared by the tests and the scripts, never imported by the app."""
