"""The Spark-side connectors (spark-avro, the Kafka connector, Delta, Iceberg) for a local Spark Connect server.

PySpark's distribution ships Spark without its external modules. A local server loads them from
``spark.jars``: the jars of ``connectors/pom.xml`` at the server's exact Spark version, fetched
once from Maven Central by ``mvn dependency:copy-dependencies`` and cached outside any checkout,
in ``<gryph cache>/spark-connectors/<spark version>/`` (``GRYPH_CACHE_DIR``, else
``$XDG_CACHE_HOME/gryph`` or ``~/.cache/gryph``). Jars Spark already ships (Hadoop, Scala,
compression codecs) are left out, so the server's own versions are the only ones it sees.

``python -m gryph.client.spark.session.connector_jars`` (``FETCH_COMMAND``) fetches them for the installed PySpark
(``.ci/bootstrap.sh tests`` does so on a fresh machine).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import sys
import tempfile
from pathlib import Path

from gryph.compiler.errors import EngineError
from gryph.compiler.support.cache_folders import cache_dir, default_cache_dir

from .maven_fetch import run_maven

POM = Path(__file__).with_name("connectors") / "pom.xml"
# what a user runs to fetch the connectors by hand (a test checks the module is there)
FETCH_COMMAND = "python -m gryph.client.spark.session.connector_jars"
FETCH_TIMEOUT = 600.0
_COMPLETE = ".complete"  # written last, naming what was fetched: a folder without it did not finish
# the Delta release built for each Spark minor version (io.delta:delta-spark_<spark>_2.13 on Maven
# Central), and Iceberg's (org.apache.iceberg:iceberg-spark-runtime-<spark>_2.13): Iceberg
# publishes none for Spark 4.2, which is why gryph pins PySpark 4.1
DELTA_FOR_SPARK = {"4.1": "4.4.0", "4.2": "4.4.0"}
ICEBERG_FOR_SPARK = {"4.1": "1.12.0"}
_VERSION_SUFFIX = re.compile(r"-\d[^-]*\.jar$")


def jar_cache() -> Path:
    """Where gryph caches jars fetched from Maven Central (kept when the grammar cache is off)."""
    return cache_dir() or default_cache_dir()


def connectors_folder(spark_version: str) -> Path:
    """Where the connectors of ``spark_version`` are cached."""
    return jar_cache() / "spark-connectors" / spark_version


def connector_properties(spark_version: str) -> dict[str, str]:
    """The pom's properties for ``spark_version``: its version, and Delta's and Iceberg's releases
    where one is built for it."""
    minor = ".".join(spark_version.split(".")[:2])
    properties = {"spark.version": spark_version, "spark.binary.version": minor}
    if minor in DELTA_FOR_SPARK:
        properties["delta.version"] = DELTA_FOR_SPARK[minor]
    if minor in ICEBERG_FOR_SPARK:
        properties["iceberg.version"] = ICEBERG_FOR_SPARK[minor]
    return properties


def cached_connector_jars(spark_version: str, spark_jars: Path) -> list[Path]:
    """The cached connector jars of ``spark_version`` that the distribution in ``spark_jars`` lacks
    (none when they were never fetched)."""
    folder = connectors_folder(spark_version)
    if not (folder / _COMPLETE).exists():
        return []
    shipped = {artifact(jar.name) for jar in spark_jars.glob("*.jar")}
    return sorted(jar for jar in folder.glob("*.jar") if artifact(jar.name) not in shipped)


def artifact(file_name: str) -> str:
    """A jar's artifact name without its version: ``kafka-clients-3.9.2.jar`` -> ``kafka-clients``."""
    return _VERSION_SUFFIX.sub("", file_name)


def fetch_connectors(spark_version: str) -> Path:
    """Fetch the connectors of ``spark_version`` into the cache (once) and return the folder."""
    return fetch_jars(
        POM,
        connectors_folder(spark_version),
        f"Spark {spark_version}'s connectors",
        connector_properties(spark_version),
    )


def fetch_jars(pom: Path, folder: Path, what: str, properties: dict[str, str]) -> Path:
    """The jars ``pom`` depends on (its ``properties`` set), copied once into ``folder`` by Maven;
    ``what`` names them in errors. A folder fetched for another pom or properties is fetched anew."""
    fetched = hashlib.sha256((pom.read_text() + repr(sorted(properties.items()))).encode()).hexdigest()
    marker = folder / _COMPLETE
    if marker.exists() and marker.read_text() == fetched:
        return folder
    mvn = shutil.which("mvn")
    if mvn is None:
        raise EngineError(
            "SPARK_CONNECTORS",
            f"cannot fetch {what}: Maven (`mvn`) is not installed",
            hint=f"install it (`apt-get install -y --no-install-recommends maven`) and run `{FETCH_COMMAND}`",
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    # fetched beside the cache and renamed into place: a failed or concurrent fetch leaves no half folder
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        # batch mode, not quiet: each file downloaded is a line the progress sums
        command = [mvn, "-B", "-Dstyle.color=never", "-f", str(pom), "dependency:copy-dependencies"]
        command += ["-DincludeScope=runtime", f"-DoutputDirectory={staging}"]
        command += [f"-D{key}={value}" for key, value in properties.items()]
        code, output = run_maven(command, what, FETCH_TIMEOUT)
        if code is None:
            raise _fetch_failed(what, f"Maven did not finish within {FETCH_TIMEOUT:.0f} s", output)
        if code != 0:
            raise _fetch_failed(what, f"Maven exited with {code}", output)
        (staging / _COMPLETE).write_text(fetched)
        if folder.exists():  # an older fetch: moved aside first (a rename does not replace a folder)
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old.", dir=folder.parent))
            with contextlib.suppress(OSError):
                folder.rename(old / folder.name)
            shutil.rmtree(old, ignore_errors=True)
        try:
            staging.rename(folder)
        except OSError:  # another process fetched them meanwhile
            if not marker.exists():
                raise
        return folder
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fetch_failed(what: str, reason: str, output: str) -> EngineError:
    errors = [line for line in output.splitlines() if "ERROR" in line][:5]
    return EngineError(
        "SPARK_CONNECTORS",
        f"cannot fetch {what} from Maven Central: {reason}",
        text="\n".join(errors) or None,
        hint="is Maven Central reachable? it must serve these artifacts at exactly the versions asked for",
    )


def main() -> int:
    """Fetch the connectors for the installed PySpark; print their folder."""
    import pyspark

    try:
        print(fetch_connectors(pyspark.__version__))
    except EngineError as error:
        print(error, file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
