"""Alerts: a message to webhooks, Slack, Teams or e-mail when a run's verdict changes.

A delivery that fails never changes the data verdict: it is reported as an ``AlertDeliveryError``
(exit 5 from the CLI when the run itself passed).
"""

from .delivery import AlertDeliveryError, resolve_secrets, send
from .events import alert_message, previous_documents
from .routing import event_for

__all__ = ["AlertDeliveryError", "alert_message", "event_for", "previous_documents", "resolve_secrets", "send"]
