"""The protocol-level load generator (``python -m devtools.load_protocol``; the module is ``__main__``).

gevent patches the standard library here, in the package, so that it happens before ``__main__`` imports
socket, ssl or threading (Locust would do it on import, with a warning that they came first).
"""

from gevent import monkey

monkey.patch_all()
