"""An alert message as each target takes it: gryph's JSON document, a Slack or Teams incoming
webhook's payload, or an e-mail's subject and text.

Names and values come from the suite and the data, so neither service may read them as markup:
Slack's mrkdwn gets ``&``, ``<`` and ``>`` escaped (``<!channel>`` or ``<https://x|label>`` stay
text), and Teams' card holds each line as a ``TextRun``, which its renderer never reads as Markdown.
"""

from __future__ import annotations

from gryph.compiler.checks.segment_checks import segment_label

from ..outputs.headline import error_text
from ..outputs.text import cell

_TITLES = {"failure": "failed", "warning": "has warnings", "recovery": "recovered", "error": "broke"}


def subject(message: dict) -> str:
    still = " (still open since " + message["open_since"] + ")" if "open_since" in message else ""
    return f"gryph: suite {message['suite']} {_TITLES[message['event']]}{still}"


def text(message: dict) -> str:
    """The message as plain lines: headline, data time, the error of a run that broke, each failed
    or warning check with its values and bounds, the checks that recovered, what could not finish,
    the report."""
    # a run that broke has its error for headline: said once, in full, on its own line below
    lines = [subject(message) if "error" in message else f"{subject(message)}: {message['headline']}"]
    if "data_time" in message:
        lines.append(f"data time: {message['data_time']}")
    if "error" in message:
        lines.append(error_text(message["error"]["code"], message["error"]["message"]))
    for status, key in (("FAIL", "failed"), ("WARN", "warnings")):
        for check in message[key]:
            values = ", ".join(f"{name} = {cell(value)}" for name, value in check["values"].items())
            error = f" (error: {check['error']})" if "error" in check else ""
            segments = f" in {_segments(check['segments'])}" if check.get("segments") else ""
            lines.append(
                f"{status} {check['name']}{segments}: {check['expression']}{error}" + (f" — {values}" if values else "")
            )
    if message.get("recovered"):
        lines.append("recovered: " + ", ".join(message["recovered"]))
    for name, segments in (message.get("recovered_segments") or {}).items():
        lines.append(f"recovered: {name} in {_segments(segments)}")
    for name, error in (message.get("unfinished") or {}).items():
        lines.append(f"could not finish: {name}: {error}")
    if "report" in message:
        lines.append(f"report: {message['report']}")
    return "\n".join(lines)


def _segments(values: list) -> str:
    """Segments as the text report shows them: text quoted, NULL bare."""
    return ", ".join(segment_label(value) for value in values)


def slack(message: dict) -> dict:
    """Slack's incoming-webhook payload: ``text`` (the notification's fallback) and one mrkdwn section."""
    body = slack_escape(text(message))
    return {
        "text": slack_escape(subject(message)),
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": body}}],
    }


def slack_escape(text: str) -> str:
    """``text`` as Slack shows it literally: its three control characters as HTML entities."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def teams(message: dict) -> dict:
    """A Teams incoming webhook's payload: a message with one Adaptive Card attachment, one
    ``RichTextBlock`` of plain ``TextRun`` per line (a ``TextBlock`` would render Markdown links)."""
    lines = text(message).split("\n")
    body = [_plain_line(lines[0], weight="Bolder", size="Medium")] + [_plain_line(line) for line in lines[1:]]
    card = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.2",
        "body": body,
    }
    return {
        "type": "message",
        "attachments": [
            {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}
        ],
    }


def _plain_line(line: str, **style: str) -> dict:
    return {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": line, **style}]}
