"""Locust's entry to the simulated students (Locust's own UI or CLI, or workers on several machines):

    PYTHONPATH=. locust -f devtools/load_protocol/locustfile.py --host http://HOST:PORT   # or after pip install -e .

Locust runs a locustfile under the name of its file, so ``__main__.py`` itself would run the command line.
"""

from devtools.load_protocol.students import Student

__all__ = ["Student"]
