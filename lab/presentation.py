"""Presenter mode: larger type, high contrast and the sidebar folded away, for a lecture-hall projector.

A teacher switches it on in the sidebar or opens a link with ``?presenter=true``; the toggle is bound
to the link like every setting (lab/links.py), so a reload or a copied link stays in it.
"""

from __future__ import annotations

import streamlit as st

from lab import i18n, language, link_names, links
from lab.i18n import _

STATE_KEY = "presenter"  # the toggle's key, and its name in the link (?presenter=true)
# the sidebar container of the page links (lab/shell.py), in the page as CSS class st-key-lab_navigation
NAVIGATION_KEY = "lab_navigation"

CHART_FONT_PX = 20  # plotly text in presenter mode: axis numbers, titles, legends (>= 16 px asked for)

# The app's own style sheet, mounted once per run as a style-only component in the sidebar (no
# st.html: nothing in the app is rendered as raw HTML). Its script marks the page while presenting.
_CSS = """
/* Narrower side margins than the wide layout's on screens up to a laptop's (the theme has no option
   for them), so that Draw's canvas and explanation fit side by side at 1024 px with the sidebar open. */
@media (max-width: 1280px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
}
/* Columns wrap onto the next row instead of squeezing below a readable width (Streamlit only stacks
   them below 640 px): metric labels, chart titles and images need about 240 px. */
[data-testid="stHorizontalBlock"] { flex-wrap: wrap; }
[data-testid="stColumn"] { min-width: min(240px, 100%); }
/* Draw: the canvas's column never shrinks below the canvas; the explanation beside it wraps below it
   (a phone, 150 % zoom with the sidebar open) rather than squeeze or overlap the canvas. The rules go
   on the flex items, the layout wrappers around the two keyed containers. */
:has(> .st-key-draw_source) { flex: 0 0 min(300px, 100%); min-width: min(300px, 100%); }
:has(> .st-key-draw_explanation) { flex: 1 1 min(320px, 100%); min-width: min(320px, 100%); }
/* Draw's verdict above the canvas: room for two metrics or the prompt on three lines of a phone, so that the
   canvas stays put between strokes. A least height, not a fixed one: larger text (presenter mode, a zoom) makes
   it grow instead of hiding the verdict in a scroll box the keyboard cannot reach. */
.st-key-draw_verdict { min-height: 118px; }
body.nb-presenter .st-key-draw_verdict { min-height: 250px; }  /* the two metrics one above the other */
.st-key-draw_verdict > :has(.st-key-draw_announcement), .st-key-draw_announcement { position: absolute; }
/* A chosen option of a segmented control (the language, Draw's input) hovered or reached by the keyboard: Streamlit
   writes its label in primaryColor, 2.8:1 on the dark theme's background (WCAG 1.4.3 asks 4.5); its border and
   background still show the hover and the focus. */
button[data-variant="segmented_control"][data-selected]:is([data-hovered], [data-focus-visible]):not([data-disabled]) {
  color: inherit;
}
/* lab/focus.py's mover takes no room either */
[class*="st-key-nb_focus"] { position: absolute; }
/* Reflow (WCAG 1.4.10): at 320 CSS px (a 1280 px screen zoomed to 400 %) the page's side margins leave the
   280 px canvas its width, and nothing scrolls sideways. */
@media (max-width: 360px) {
  [data-testid="stMainBlockContainer"] { padding-left: 0.5rem; padding-right: 0.5rem; }
}
/* A file the uploader refuses (too large): Streamlit marks it with a red icon and keeps the reason for
   hover and screen readers. Show the reason under the file's name, in the text's colour... */
[data-testid="stFileChip"]:has([data-testid="stFileChipIconError"]) { flex-wrap: wrap; }
[data-testid="stFileChip"]:has([data-testid="stFileChipIconError"]) > span {
  position: static; width: 100%; height: auto; margin: 0.25rem 0 0; padding: 0 0.25rem;
  overflow: visible; clip: auto; clip-path: none; white-space: normal; font-size: 0.875rem; color: inherit;
}
/* ...and once another file is chosen, take the refused one off the list (the list keeps both). */
[data-testid="stFileChips"] > div > div:not(:last-child):has([data-testid="stFileChipIconError"]) { display: none; }
/* Captions less faded: Streamlit draws them at opacity 0.6, 3.6:1 on the light background (and their links 2.9:1,
   their code 2.7:1; WCAG 1.4.3 asks 4.5). At 0.85 the theme's text is 7.5:1 on the light, 12:1 on the dark. */
.stApp [data-testid="stCaptionContainer"] { opacity: 0.85; }
/* Text Streamlit draws in the primary colour (a slider's value, the chosen segment): in the text's colour instead,
   since no dark-theme primary can be both >= 4.5:1 under a white button label and >= 4.5:1 as text on the dark
   background. The chosen segment stays marked without colour: bold and underlined. */
.stApp [data-testid="stSliderThumbValue"] { color: inherit; }
.stApp button[data-variant][aria-checked="true"] { color: inherit; font-weight: 700; text-decoration: underline; }
/* Focus that shows on every background (WCAG 2.4.7, 1.4.11): a black ring outside a white one, so that one of
   the two is >= 3:1 against whatever is around the control, in either theme and in presenter mode. Streamlit's
   own is a faint tint (1.1:1) on links, radios and switches. Controls whose <input> is visually hidden (radio,
   checkbox, switch) show it on their label; a box that lab/focus.py focuses shows it too. */
.stApp :is(a, button, summary, [role="slider"], [role="tab"], [role="button"], [tabindex="0"]):focus-visible,
.stApp [class*="st-key-"][tabindex="-1"]:focus-visible,
.stApp label:has(input:focus-visible),
.stApp :is([data-baseweb="input"], [data-baseweb="select"], [data-baseweb="textarea"]):focus-within {
  outline: 3px solid #000000 !important; outline-offset: 2px; box-shadow: 0 0 0 2px #ffffff !important;
}
/* Presenter mode: black on white whatever the theme, larger type. */
body.nb-presenter .stApp, body.nb-presenter [data-testid="stSidebar"], body.nb-presenter [data-testid="stHeader"] {
  background: #ffffff !important;
}
body.nb-presenter .stApp p, body.nb-presenter .stApp li, body.nb-presenter .stApp label,
body.nb-presenter .stApp span, body.nb-presenter .stApp h1, body.nb-presenter .stApp h2,
body.nb-presenter .stApp h3, body.nb-presenter [data-testid="stMetricValue"],
body.nb-presenter [data-testid="stMetricLabel"], body.nb-presenter [data-testid="stCaptionContainer"] {
  color: #000000 !important;
}
/* ...except a primary button's label: white on the theme's primary colour (black on it was 3.05:1). */
body.nb-presenter .stApp [data-testid^="stBaseButton-primary"] :is(p, span) { color: #ffffff !important; }
/* Body text 1.25 times its size (paragraphs, lists, captions, labels, alerts, chart titles: all are
   Markdown); headings and metrics are large already. em, so that a caption stays smaller than a paragraph. */
body.nb-presenter [data-testid="stMain"] [data-testid="stMarkdownContainer"] { font-size: 1.25em; }
body.nb-presenter [data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] {
  font-size: inherit;
}
body.nb-presenter [data-testid="stMain"] [data-testid="stCaptionContainer"] { font-size: 1.09375rem; }
/* A link to another page in the text wraps like the text: Streamlit cuts it to one line with "…". */
[data-testid="stMain"] [data-testid="stPageLink"] :is(a, span, p) {
  white-space: normal; overflow: visible; text-overflow: clip; height: auto;
}
"""
_JS = """
// What Streamlit's elements lack for the keyboard and screen readers, added to the page as it changes (at most
// once per frame): the navigation link of the page shown gets aria-current="page" (st.page_link marks it only
// visually), and a table wider than its column (a phone) becomes a named tab stop, so that the keyboard can
// scroll it (WCAG 2.1.1; axe's scrollable-region-focusable).
function mark(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null) element.removeAttribute(name);
    else if (element.getAttribute(name) !== value) element.setAttribute(name, value);
  }
}
function addWhatIsMissing() {
  window.__nbMarkPending = false;
  for (const link of document.querySelectorAll('.st-key-NAVIGATION_KEY a[data-testid="stPageLink-NavLink"]')) {
    const current = new URL(link.href, location.href).pathname === location.pathname;
    mark(link, { "aria-current": current ? "page" : null });
  }
  for (const scroller of document.querySelectorAll('[data-testid="stTable"] > div')) {
    const scrolls = scroller.scrollWidth > scroller.clientWidth + 1;
    mark(scroller, scrolls ? { tabindex: "0", role: "region", "aria-label": window.__nbTableLabel }
                           : { tabindex: null, role: null, "aria-label": null });
  }
  // Streamlit's own names for screen readers, in the reader's language (no public API sets them)
  const words = window.__nbStreamlitWords || {};
  for (const element of document.querySelectorAll('[aria-label]')) {
    const label = element.getAttribute('aria-label');
    for (const [english, translated] of Object.entries(words.labels || {})) {
      if (label === english) mark(element, { "aria-label": translated });
    }
    for (const [prefix, translated] of Object.entries(words.prefixes || {})) {
      if (label.startsWith(prefix)) mark(element, { "aria-label": translated.replace("{name}", label.slice(prefix.length)) });
    }
  }
  for (const skip of document.querySelectorAll('a[data-testid="stSkipToContent"]')) {
    if (words.skip && skip.textContent !== words.skip) skip.textContent = words.skip;
  }
  for (const box of document.querySelectorAll('[class*="st-key-ENGLISH_PREFIX"] :is(textarea, input)')) {
    mark(box, { lang: "en" });  // a part written in English whatever the page's language (WCAG 3.1.2)
  }
  for (const choice of document.querySelectorAll('.st-key-LANGUAGE_KEY button')) {
    const tag = (window.__nbLanguageNames || {})[choice.textContent.trim()];
    if (tag) mark(choice, { lang: tag });
  }
}
function schedule() {
  if (!window.__nbMarkPending) {
    window.__nbMarkPending = true;
    requestAnimationFrame(addWhatIsMissing);
  }
}
export default function ({ data }) {
  document.body.classList.toggle("nb-presenter", Boolean(data.presenting));
  // WCAG 3.1.1 and 3.1.2: the page's language, and each language's name in the sidebar's choice in its own
  document.documentElement.lang = data.lang;
  window.__nbLanguageNames = data.languageNames;
  window.__nbTableLabel = data.tableLabel;
  window.__nbStreamlitWords = data.streamlitWords;
  if (!window.__nbObserver) {
    window.__nbObserver = new MutationObserver(schedule);
    window.__nbObserver.observe(document.body, { childList: true, subtree: true });
    window.addEventListener("resize", schedule);
    document.addEventListener("toggle", schedule, true);  // an expander opened: its table gets a width
  }
  schedule();
}
"""
_ENGLISH_PREFIX = "in_english_"
_JS = (
    _JS.replace("NAVIGATION_KEY", NAVIGATION_KEY)
    .replace("LANGUAGE_KEY", language.PARAM)
    .replace("ENGLISH_PREFIX", _ENGLISH_PREFIX)
)
_style = st.components.v2.component("naive_bayes_lab_style", css=_CSS, js=_JS, isolate_styles=False)


def presenter_mode() -> bool:
    """Whether this session presents: the toggle's value, or before the toggle is drawn, the link's."""
    if STATE_KEY in st.session_state:
        return bool(st.session_state[STATE_KEY])
    return str(st.query_params.get(STATE_KEY, "")).lower() == "true"


def sidebar_toggle() -> None:
    """The presenter-mode switch in the sidebar (in the link as ?presenter=true)."""
    st.sidebar.toggle(
        help=_(
            "Larger type, high contrast and the sidebar folded away, for a projector. "
            "A link with ?presenter=true opens in it."
        ),
        **links.control(_("Presenter mode"), STATE_KEY, link_names.row(STATE_KEY).default),
    )


def apply_style(presenting: bool) -> None:
    """Mount the app's style sheet (in the sidebar, where it takes no room), marked for presenting or not."""
    with st.sidebar:
        data = {
            "presenting": presenting,
            "lang": i18n.current().tag,
            "languageNames": language.names(),
            "tableLabel": _("Table, scrolls sideways"),
            "streamlitWords": _streamlit_words(),
        }
        _style(key="lab_style", data=data, width="content", height="content")


def in_english(name: str) -> str:
    """The key of a container whose text boxes hold English in every language (the spam filter's SMS): the page's
    script marks them ``lang="en"``."""
    return _ENGLISH_PREFIX + name


def _streamlit_words() -> dict:
    """Streamlit's names for screen readers that the page's script puts in the reader's language: whole labels,
    and labels that begin with a word and go on with a control's name ("Help for Deskew")."""
    return {
        "labels": {
            "Sidebar": _("Sidebar"),
            "Collapse sidebar": _("Collapse sidebar"),
            "Expand sidebar": _("Expand sidebar"),
            "Link to heading": _("Link to heading"),
        },
        "prefixes": {"Help for ": _("Help for {name}"), "Fullscreen: ": _("Full screen: {name}")},
        "skip": _("Skip to main content"),
    }


def chart_font_px() -> int | None:
    """Font size for plotly text in this session, or None for the figure's own."""
    return CHART_FONT_PX if st.session_state.get(STATE_KEY) else None
