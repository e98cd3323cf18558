"""The dashboard's support code: page frame, shared state, figures (imported by the script and every page)."""
