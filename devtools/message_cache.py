"""The browser's cache of Streamlit messages, for ``devtools/streamlit_client.py``.

The frontend keeps a ``ForwardMsg`` marked ``cacheable`` while a run uses it within the last ``CACHE_RUNS``
finished runs, advertises the hashes it keeps with every run (``cached_message_hashes``), and reads a ``ref_hash``
reply from what it keeps: a server that knows the browser holds a message sends its hash instead.
"""

from __future__ import annotations

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from devtools.protocol_run import ProtocolError

CACHE_RUNS = 2  # the browser keeps a cacheable message while used within this many runs (global.maxCachedMessageAge)


class MessageCache:
    """Messages kept by hash, each with the finished runs since a run last used it."""

    def __init__(self) -> None:
        self.kept: dict[str, list] = {}  # hash -> [message, finished runs since it was last used]

    def hashes(self) -> list[str]:
        """What a run advertises it holds, sorted."""
        return sorted(self.kept)

    def through(self, message: ForwardMsg) -> ForwardMsg:
        """``message``, or the kept message a ``ref_hash`` names (with the reference's metadata); kept if cacheable."""
        if message.WhichOneof("type") == "ref_hash":
            kept = self.kept.get(message.ref_hash)
            if kept is None:
                raise ProtocolError(
                    f"the server referred to message {message.ref_hash}, which this client does not hold"
                )
            kept[1] = 0
            resolved = ForwardMsg()
            resolved.CopyFrom(kept[0])
            resolved.metadata.CopyFrom(message.metadata)
            return resolved
        if message.metadata.cacheable and message.hash:
            self.kept[message.hash] = [message, 0]
        return message

    def age(self) -> None:
        """A run finished: messages unused for more than CACHE_RUNS finished runs are dropped, as the browser does."""
        for key, kept in list(self.kept.items()):
            kept[1] += 1
            if kept[1] > CACHE_RUNS:
                del self.kept[key]
