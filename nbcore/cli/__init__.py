"""The command line's groups, one module each with its parsers and handlers; ``nbcore/__main__.py`` builds the
top-level parser from them and dispatches."""
