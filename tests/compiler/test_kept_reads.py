"""A stream's kept rows as the compiler reads them (compiler/suites/kept_reads.py): the stream
declares only what it kept, each rule kind's ``KEPT_READS`` says which rule reads which rows as
what, and the batch's plan reads them through views the compiler makes of names and integers."""

from __future__ import annotations

from pathlib import Path

from gryph.compiler.compile import view_plan
from gryph.compiler.plan import Sql
from gryph.compiler.rule_kinds import RULE_KINDS
from gryph.compiler.suites.kept_reads import kept_readers, longest_windows, reading_kept
from gryph.compiler.suites.kept_rows import KEPT_READS, KeptRole, KeptRows
from gryph.compiler.suites.native_suites import parse_suite

CLIENT_STREAMING = Path(__file__).resolve().parents[2] / "client" / "streaming"

SUITE = """suite kept
source orders = folder("orders/", format = "json", schema = "id string, customer string")
source customers = folder("customers/", format = "json", schema = "name string")
source ledger = csv("ledger.csv")
accuracy known on orders, customers: orders.customer = customers.name with retry = 2m, lookback = 1h
uniqueness ids on orders: id with window = 10m
distinctness fresh on orders: id with window = 1h
uniqueness plain on orders: id
accuracy booked on orders, ledger: orders.id = ledger.id with retry = 5m
"""
TMST = 10_000_000


def _suite():
    suite = parse_suite(SUITE, "kept.dq")
    suite.timestamp_ms = TMST
    return suite


def test_the_rules_that_read_kept_rows_and_how_far_back():
    readers = {(r.rule.name, r.read.detail): r for r in kept_readers(_suite())}
    # ``plain`` has no window; ``booked`` retries its misses (its source is streamed) though its
    # target is a file: the misses are the source's rows
    assert sorted(readers) == [
        ("booked", "retry"),
        ("fresh", "window"),
        ("ids", "window"),
        ("known", "lookback"),
        ("known", "retry"),
    ]
    assert readers["known", "retry"].of == "known" and readers["known", "retry"].read.role is KeptRole.MISSES
    assert readers["known", "lookback"].of == "customers" and readers["known", "lookback"].window_ms == 3_600_000
    assert readers["ids", "window"].since(TMST) == TMST - 600_000
    # per stream, the longest window that reads its earlier rows (orders: 10m and 1h)
    assert longest_windows(readers.values(), KeptRole.EARLIER) == {"customers": 3_600_000, "orders": 3_600_000}
    assert longest_windows(readers.values(), KeptRole.MISSES) == {"known": 120_000, "booked": 300_000}


def test_a_batch_reads_what_was_kept_through_the_compilers_views():
    kept = [
        KeptRows("known", KeptRole.MISSES, ("p/batch-1/known.parquet",)),
        KeptRows("orders", KeptRole.EARLIER, ("r/orders/batch-1.parquet", "r/orders/batch-2.parquet")),
        KeptRows("customers", KeptRole.EARLIER, ("r/customers/batch-2.parquet",)),
    ]
    plain = _suite()
    suite = reading_kept(plain, kept_readers(plain), kept)
    rules = {rule.name: rule for rule in suite.rules}
    views = {view.name: view_plan(suite, view, {}).relation for view in suite.views}
    # one source per kept input, though two windows read the orders' rows
    added = {name: spec.paths for name, spec in suite.sources.items() if name not in plain.sources}
    assert sorted(added.values()) == [
        ("p/batch-1/known.parquet",),
        ("r/customers/batch-2.parquet",),
        ("r/orders/batch-1.parquet", "r/orders/batch-2.parquet"),
    ]
    assert all(suite.sources[name].format == "parquet" for name in added)
    by_files = {paths: name for name, paths in added.items()}
    misses, orders = by_files[("p/batch-1/known.parquet",)], by_files[kept[1].files]
    customers = by_files[("r/customers/batch-2.parquet",)]

    def text(view: str) -> str:
        relation = views[view]
        assert isinstance(relation, Sql)
        return relation.text

    # accuracy reads its batch and its misses of the last 2 minutes as its source, the target's
    # batch and earlier rows of the last hour as its target, under their own names
    known = rules["known"]
    assert set(known.reads) == {"orders", "customers"}
    assert text(known.reads["orders"]) == (
        f"SELECT * FROM `orders` UNION ALL SELECT * FROM `{misses}` WHERE `__tmst` >= {TMST - 120_000}"
    )
    assert text(known.reads["customers"]) == (
        f"SELECT * FROM `customers` UNION ALL SELECT * FROM `{customers}` WHERE `__tmst` >= {TMST - 3_600_000}"
    )
    # uniqueness counts over the batch and 10 minutes back; distinctness against the hour before only
    assert (
        text(rules["ids"].target)
        == f"SELECT * FROM `orders` UNION ALL SELECT * FROM `{orders}` WHERE `__tmst` >= {TMST - 600_000}"
    )
    assert text(rules["fresh"].target) == f"SELECT * FROM `{orders}` WHERE `__tmst` >= {TMST - 3_600_000}"
    # nothing kept for ``booked`` (a first batch): it reads its batch alone; ``plain`` is untouched
    assert rules["booked"].reads == {} and rules["plain"].target is None and rules["plain"].reads == {}


def test_nothing_kept_leaves_the_suite_as_it_is():
    suite = _suite()
    readers = kept_readers(suite)
    assert reading_kept(suite, readers, []) == suite
    assert reading_kept(suite, readers, [KeptRows("orders", KeptRole.EARLIER, ())]) == suite  # no file: nothing to read


def test_kept_names_never_take_a_name_the_suite_has():
    text = SUITE.replace("source ledger", 'source __kept_misses_known = csv("x.csv")\nsource ledger')
    suite = parse_suite(text, "kept.dq")
    suite.timestamp_ms = TMST
    read = reading_kept(suite, kept_readers(suite), [KeptRows("known", KeptRole.MISSES, ("m.parquet",))])
    assert read.sources["__kept_misses_known"].paths != ("m.parquet",)  # the user's source kept
    (added,) = (name for name, spec in read.sources.items() if spec.paths == ("m.parquet",))
    assert added != "__kept_misses_known" and added not in suite.sources


def test_the_stream_client_writes_no_sql_and_no_name_of_its_own_for_kept_rows():
    # which rule reads which kept rows, and how, is the compiler's: the client only says what it kept
    for module in CLIENT_STREAMING.glob("*.py"):
        text = module.read_text(encoding="utf-8")
        for word in ("SELECT ", "UNION ALL", "__pending_", "__retry_", "__history_", "__window_"):
            assert word not in text, f"{module.name} holds {word!r}"


def test_every_detail_that_sets_a_window_is_an_option_its_kind_declares():
    for kind, reads in KEPT_READS.items():
        assert {read.detail for read in reads} <= set(RULE_KINDS[kind].options), kind
