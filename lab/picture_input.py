"""Draw's picture input outside the page: an uploaded picture read once per file and ink choice, and what went wrong
with a picture or a drawing said in the reader's language. The page lays out the uploader and the messages."""

from __future__ import annotations

import re

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from lab import i18n
from lab.i18n import N_, _
from nbcore.preprocess import UPLOAD_FORMATS, ImageInputError, ModelInput, model_input, read_upload

# session_state keys: the file and ink choice read last, and what came of it
_READ, _OUTCOME = "upload_id", "upload_outcome"


def upload_formats() -> str:
    """nbcore's picture formats as the reader lists them: "PNG, JPEG, GIF, BMP, WebP or TIFF"."""
    *first, last = re.split(r", | or ", UPLOAD_FORMATS)
    return _("{formats} or {last}").format(formats=", ".join(first), last=last) if first else last


# nbcore's messages for a picture or a drawing it cannot read (ImageInputError), word for word: each is matched in
# what nbcore raised, its {details} taken from there, and said in the reader's language (any other as nbcore says it)
IMAGE_PROBLEMS = (
    N_("This file is not an image we can read ({formats})."),
    N_("This image is damaged or truncated and cannot be read ({detail})."),
    N_(
        "This image is {width}x{height} pixels, too large to process (limit {limit} megapixels). "
        "Please upload a smaller picture."
    ),
    N_("This image is too large to process (limit {limit} megapixels). Please upload a smaller picture."),
    N_("The canvas sent a drawing that is not a PNG of a sensible size."),
    N_("The canvas sent a drawing too large to process."),
    N_("The canvas sent a damaged drawing ({detail})."),
    N_("The canvas sent something that is not a PNG drawing."),
)


def image_problem(text: str) -> str:
    """What went wrong with a picture or a drawing (nbcore's message ``text``), in the reader's language."""
    for message in IMAGE_PROBLEMS:
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(message))  # "{detail}" -> (?P<detail>.+?)
        found = re.fullmatch(pattern, text, flags=re.DOTALL)
        if found:
            values = {
                name: i18n.integer(int(value)) if value.isdigit() else value
                for name, value in found.groupdict().items()
            }
            if "formats" in values:
                values["formats"] = upload_formats()
            return _(message).format(**values)
    return text


def read_once(upload: UploadedFile, swap: bool) -> tuple[ModelInput | None, bool | None, str | None]:
    """The uploaded picture read with ink and paper swapped or not: (how the digit was framed, or None when the picture
    is blank; whether the ink was dark; nbcore's sentence when it could not be read). Read once per file and choice,
    not on every rerun."""
    if st.session_state.get(_READ) != (upload.file_id, swap):
        outcome: tuple[ModelInput | None, bool | None, str | None]
        try:
            read = read_upload(upload.getvalue(), swap)
            outcome = model_input(read.ink), read.dark_ink, None
        except ImageInputError as error:
            outcome = None, None, str(error)
        st.session_state[_READ], st.session_state[_OUTCOME] = (upload.file_id, swap), outcome
    return st.session_state[_OUTCOME]


def forget() -> None:
    """No file any more: what was read from the last one goes (its message with it)."""
    st.session_state.pop(_OUTCOME, None)
    st.session_state.pop(_READ, None)
