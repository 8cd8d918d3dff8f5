"""Page state in the URL: read once per session, written back on every run, so a copied link reproduces the view."""

from __future__ import annotations

import streamlit as st

def param(name: str, default, cast=str):
    """A value from the URL, or `default` when absent or unreadable."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    try:
        return cast(raw)
    except (TypeError, ValueError):
        return default


def param_in_range(name: str, default, lo, hi, cast, label: str, notes: list[str]):
    """A URL value clamped to [lo, hi]; a value out of range or unreadable is replaced and said so in `notes`."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    try:
        value = cast(raw)
    except (TypeError, ValueError):
        notes.append(f"{label} = {raw!r} in the link is not a number; using {default}.")
        return default
    if value != value:  # NaN
        notes.append(f"{label} in the link is not a number; using {default}.")
        return default
    if not lo <= value <= hi:
        clamped = min(hi, max(lo, value))
        notes.append(f"{label} = {raw} in the link is outside [{lo}, {hi}]; using {clamped}.")
        return clamped
    return value


def seed_from_url(key: str, name: str, default, valid=lambda v: True, cast=str, bounds: tuple | None = None,
                  label: str | None = None) -> None:
    """Give widget `key` its first value from the link's `name`, else `default`. A number outside `bounds` is
    clamped to them and any other value the page cannot use is replaced, each said in a warning naming the
    parameter (`label`, else its URL name), as the Query page says of its link. Only before the widget exists in
    this session: afterwards the user's own choice stands, handed back to the session on every run. Streamlit keys
    a widget's value by an identity that can change between runs (its page, some of its arguments); a value left
    under the old identity was still in the session, yet the widget drew its default: a sweep under load showed
    no retriever and 0 resamples. Handing it back is Streamlit's documented way to keep a widget's value."""
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]
        return
    raw = st.query_params.get(name)
    value = param(name, None, cast)
    if bounds is not None and value is not None and value == value and not bounds[0] <= value <= bounds[1]:
        value = min(bounds[1], max(bounds[0], value))
        st.warning(f"{label or name} = {raw} in the link is outside [{bounds[0]}, {bounds[1]}]; using {value}.")
    elif raw is not None and (value is None or not valid(value)):
        st.warning(f"{label or name} = {raw!r} in the link is not one this page can use; using "
                   f"{', '.join(map(str, default)) if isinstance(default, list) else default}.")
        value = default
    st.session_state[key] = value if value is not None else default


def asked_by_link(name: str, page: str) -> bool:
    """True on `page`'s first run in this session when its link says `name=1` (a view with results, to be
    computed again on open); False afterwards, so the user's own clicks decide from then on."""
    done = f"asked_by_link_{page}"
    first = not st.session_state.get(done)
    st.session_state[done] = True
    return first and param(name, "") == "1"


def list_param(raw: str, allowed) -> list:
    return [x for x in raw.split(",") if x in allowed]


def set_params(**values) -> None:
    """Write page state into the URL so that pasting it elsewhere reproduces the view."""
    for k, v in values.items():
        if v is None or v == "":
            st.query_params.pop(k, None)
        else:
            text = str(v)
            if st.query_params.get(k) != text:
                st.query_params[k] = text
