"""Each of the client's import contracts catches the slip it is there for: the import added to a
copy of the tree breaks that contract (and an unchanged tree keeps them all)."""

from __future__ import annotations

import pytest

from tests.support.import_slips import broken_contracts

LAYERS = "The client's packages, each importing only those below it"
SPARK_BY_REGISTRY = "Only the engine registry imports the Spark engine"
OUTPUTS_NO_ENGINE = "Outputs, stores and results import no engine"
ENGINES_NO_CLIENT = "Engines import nothing of the client but the Spark engine itself"

SLIPS = [
    # (module, added import, the contract that must break)
    ("client/outputs/html/page.py", "from gryph.client.run.runner import run", LAYERS),  # the report imports the runner
    ("client/store/stream_state.py", "from gryph.client.cli import main", LAYERS),  # the stream state imports the CLI
    ("client/run/runner.py", "from gryph.client.streaming import batch_inputs", LAYERS),
    ("client/results/run_result.py", "from gryph.client.outputs import headline", LAYERS),
    ("client/alerts/events.py", "from gryph.client.spark import engine", SPARK_BY_REGISTRY),  # alerts import Spark
    ("client/cli/main.py", "from gryph.client.spark import SparkEngine", SPARK_BY_REGISTRY),
    ("client/outputs/text.py", "import gryph.local_backend.engine", OUTPUTS_NO_ENGINE),
    ("client/spark/engine.py", "from gryph.client.store import history", ENGINES_NO_CLIENT),
    ("local_backend/engine.py", "from gryph.client.outputs import text", ENGINES_NO_CLIENT),
]


def test_the_tree_as_it_is_keeps_every_contract():
    assert broken_contracts("client/__init__.py", "") == []


@pytest.mark.parametrize(("module", "line", "contract"), SLIPS, ids=[f"{m}:{c[:20]}" for m, _, c in SLIPS])
def test_a_slip_breaks_its_contract(module, line, contract):
    assert contract in broken_contracts(module, line)
