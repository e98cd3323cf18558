"""A script run as the protocol client (devtools/streamlit_client.py) reads it: the elements it showed, when they
arrived, its errors and texts; and ``ProtocolError`` for a session that failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ALERT_ERROR = 1  # streamlit.proto.Alert_pb2.Alert.Format.ERROR


class ProtocolError(RuntimeError):
    """The server closed the connection, sent nothing in time, or sent something unexpected."""


@dataclass
class ShownElement:
    """One ``new_element`` delta of a run: where it goes, what it is, when it arrived (time.perf_counter())."""

    path: tuple[int, ...]
    kind: str  # the Element oneof name: "metric", "markdown", "alert", "exception", "bidi_component", ...
    proto: Any  # the element's own message, e.g. a streamlit.proto.Metric_pb2.Metric
    received_at: float
    fragment_id: str = ""


@dataclass
class RunResult:
    """What one script run sent back, from the BackMsg that asked for it to its ``script_finished``."""

    sent_at: float  # time.perf_counter() when the request left
    finished_at: float = 0.0
    status: str = ""  # "finished", "fragment", "compile_error"
    fragment_id: str = ""  # the fragment asked to rerun ("" for the whole page)
    elements: list[ShownElement] = field(default_factory=list)
    messages: int = 0  # ForwardMsgs received for this run
    page_not_found: str | None = None
    session_events: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        """Request sent -> ``script_finished`` received, in seconds."""
        return self.finished_at - self.sent_at

    def of_kind(self, kind: str) -> list[ShownElement]:
        return [element for element in self.elements if element.kind == kind]

    def metric_element(self, label: str) -> ShownElement | None:
        """The last ``st.metric`` with this label shown in the run."""
        found = [element for element in self.of_kind("metric") if element.proto.label == label]
        return found[-1] if found else None

    def metric(self, label: str) -> str | None:
        """The value (``body``) of the ``st.metric`` with this label, or None if the run did not show it."""
        element = self.metric_element(label)
        return element.proto.body if element else None

    @property
    def exceptions(self) -> list[str]:
        """``st.exception`` boxes (an uncaught exception in the script shows as one): "Type: message"."""
        return [f"{element.proto.type}: {element.proto.message}" for element in self.of_kind("exception")]

    @property
    def errors(self) -> list[str]:
        """Exceptions, ``st.error`` alerts, compile errors, page-not-found and session error events."""
        found = list(self.exceptions)
        found += [
            f"st.error: {element.proto.body}"
            for element in self.of_kind("alert")
            if element.proto.format == ALERT_ERROR
        ]
        if self.status == "compile_error":
            found.append("script finished with a compile error")
        if self.page_not_found is not None:
            found.append(f"page not found: {self.page_not_found!r}")
        return found + self.session_events

    def texts(self) -> list[str]:
        """Every markdown/caption/heading/alert body and metric "label: value (delta)" the run showed, in order."""
        out = []
        for element in self.elements:
            proto = element.proto
            if element.kind == "metric":
                out.append(f"{proto.label}: {proto.body} ({proto.delta})")
            elif element.kind in ("markdown", "heading", "alert", "text"):
                out.append(proto.body)
        return out
