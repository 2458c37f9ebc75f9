"""Threads only for what is open: which of an episode draft's threads are real open business.

An open thread is shown as "still open" in every later context and Prime, so it must be something a
later conversation can settle. Whatever made the draft (the rules or a language model), a thread
is kept when it is

- a **question** the conversation left unanswered: it reads as a question (a question mark, or an
  interrogative or inverted opening: "which visa …", "can you …");
- a **request**: an imperative addressed to the assistant ("please …", "remind me …", "book …"), or
  a promise of the assistant's still to keep (an action item the assistant owns);
- a **commitment** of the user's own (an action item the user owns) that a later report can close;

and, in every case, only when a later conversation can close it (``thread_closure``): at least
``thread_closure.MIN_TERMS`` key terms that are words, not figures. So "My card is 4242 4242 4242 4242?", "work"
or "call 07700 900123" open nothing; "send the tax report to Marta" and "which visa fits a remote
job?" do.

Anything else — a statement ("I'm allergic to peanuts", a card or phone number, "I have to work on
Saturday") — opens no thread. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import re

from agent_svc.domain.extraction import EpisodeDraft, Thread
from agent_svc.domain.thread_closure import closable, is_question

_I = re.IGNORECASE
_REQUEST = re.compile(
    r"^\s*(?:please|pls|kindly|remind|tell|show|send|book|find|check|look up|look into|help|let me know|"
    r"get me|give me|make|draft|write|schedule|set up|order|reserve|cancel|call|email|text|translate|"
    r"summari[sz]e|explain|recommend|suggest|compare|list)\b",
    _I,
)


def is_request(topic: str) -> bool:
    """Whether ``topic`` is an imperative addressed to the assistant."""
    return bool(_REQUEST.match(topic)) and closable(topic)


def is_open_business(thread: Thread, draft: EpisodeDraft) -> bool:
    """Whether ``thread`` of ``draft`` is a question, a request or a closable commitment."""
    topic = thread.topic.strip()
    owners = {item.owner for item in draft.action_items if item.task.strip() == topic}
    if owners:
        # The assistant's promise (what the user asked for, still to do) or the user's own plan.
        return closable(topic)
    return is_question(topic) or is_request(topic)


def open_business(draft: EpisodeDraft) -> EpisodeDraft:
    """``draft`` with only the threads that are open business (``is_open_business``)."""
    kept = tuple(thread for thread in draft.open_threads if is_open_business(thread, draft))
    if len(kept) == len(draft.open_threads):
        return draft
    return dataclasses.replace(draft, open_threads=kept)
