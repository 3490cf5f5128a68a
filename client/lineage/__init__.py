"""OpenLineage: a run (and each stream batch) as START and COMPLETE or FAIL run events, its
sources as input datasets with their data-quality metrics and assertions, through the
``openlineage-python`` client and its transports (the ``openlineage`` extra).

An event that is not delivered never changes the verdict: it is a warning and
``LINEAGE_NOT_SENT`` (exit 5 when the run itself passed), as an alert not sent is.
"""

from .emitter import LineageDeliveryError
from .run_lineage import RunLineage, run_lineage

__all__ = ["LineageDeliveryError", "RunLineage", "run_lineage"]
