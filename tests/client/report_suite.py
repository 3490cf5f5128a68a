"""A small suite with known numbers for the HTML report's tests, counted by hand below."""

from __future__ import annotations

from pathlib import Path

# users: 5 rows; id 3 twice; one NULL email; ids 1..4 are in the copy, 5 is not (and the second 3
# matches the copy's 3): accuracy 4 matched of 5, completeness 4 of 5, one value (3) twice
USERS = "id,email\n1,a@x\n2,b@x\n3,\n3,c@x\n5,e@x\n"
COPY = "id,email\n1,a@x\n2,b@x\n3,c@x\n4,d@x\n"
# orders: latencies 1, 1, 3, 7 minutes with 2-minute steps: steps 0 (2 rows), 1 (1), 3 (1);
# percentile_disc(0.5) over (60000, 60000, 180000, 420000) is 60000
ORDERS = (
    "id,created,shipped\n1,2026-01-01 00:00:00,2026-01-01 00:01:00\n"
    "2,2026-01-01 00:00:00,2026-01-01 00:01:00\n3,2026-01-01 00:00:00,2026-01-01 00:03:00\n"
    "4,2026-01-01 00:00:00,2026-01-01 00:07:00\n"
)

SUITE = """suite shop
source users = csv("{users}")
source copy = csv("{copy}")
source orders = csv("{orders}", schema = "id bigint, created timestamp, shipped timestamp")
accuracy same on users, copy: users.id = copy.id with miss = "missing"
completeness contact on users: email
uniqueness ids on users: id with duplication.array = "dup"
timeliness delivery on orders: created, shipped with step.size = 2m, percentile.values = (0.5)
profiling by_email_domain: select substr(email, 3) as domain, count(*) as n from users group by substr(email, 3) order by domain
measure "</script><b>odd</b> ünï": select count(*) from users where email is null
check "no missing email": measures["</script><b>odd</b> ünï"] <= 0
pass when all
"""


def write_suite(folder: Path) -> Path:
    paths = {}
    for name, text in (("users", USERS), ("copy", COPY), ("orders", ORDERS)):
        paths[name] = folder / f"{name}.csv"
        paths[name].write_text(text)
    suite = folder / "shop.dq"
    suite.write_text(SUITE.format(**paths))
    return suite
