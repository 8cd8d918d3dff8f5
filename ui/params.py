"""One widget maker for the catalog's parameters: every page draws a parameter from its catalog entry (label, bounds,
step, help), so a range is written once, in engine/catalog.py."""

from __future__ import annotations

import streamlit as st

from engine.catalog import PARAMS


def param_widget(where, name: str, *, key: str | None = None, disabled: bool = False):
    """Parameter `name`'s widget in `where` (the page, a column, a container), its value kept in the session under
    `key` (its name unless a page keeps its own copy): a slider for a share (a float over a range of at most 2
    moved by at least 0.01), a number box otherwise."""
    p = PARAMS[name]
    cast, step = type(p.default), p.increment
    low, high = cast(p.low), cast(p.high)
    if cast is float and high - low <= 2 and step >= 0.01:
        return where.slider(p.label, low, high, step=step, key=key or name, disabled=disabled, help=p.help)
    decimals = len(f"{step:g}".partition(".")[2])
    return where.number_input(p.label, low, high, step=cast(step), key=key or name, disabled=disabled, help=p.help,
                              **({"format": f"%.{max(decimals, 2)}f"} if cast is float else {}))


def hop_widgets(where, *, key_prefix: str = "", disabled: bool = False) -> None:
    """The second hop as a reader meets it: a switch, "Follow bridges (second hop)", and γ under it while it is on.
    The switch's state is γ > 0; turning it on starts γ at the catalog's value where the hop is on."""
    from engine.retrieve.second_hop import HOP_SHARE

    gamma, switch = f"{key_prefix}hop_share", f"{key_prefix}hop_on"
    st.session_state[switch] = float(st.session_state.get(gamma, 0.0)) > 0

    def flipped() -> None:
        st.session_state[gamma] = HOP_SHARE if st.session_state[switch] else 0.0

    where.toggle("Follow bridges (second hop)", key=switch, on_change=flipped, disabled=disabled,
                 help="After a first walk from the question, walk again from the names its best passages mention "
                      "and the question does not: the next link of a chain (“the fund whose portfolio holds Solano "
                      "Foods” → the fund → its investors). Each answer then says how much of its score came "
                      "through those bridges, and the page says whether the second walk moved any passage.")
    if st.session_state[switch]:
        param_widget(where, "hop_share", key=gamma, disabled=disabled)


__all__ = ["hop_widgets", "param_widget"]
