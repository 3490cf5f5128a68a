"""Kafka consumer settings a suite may not give: those that make the client load code or run a
command on the machine that reads the stream.

A suite's ``kafka.*`` options reach librdkafka (DuckDB: confluent-kafka) and Kafka's Java client
(Spark's connector) as they are. Among librdkafka's settings (its CONFIGURATION.md),
``plugin.library.paths`` dlopens libraries, ``ssl.engine.location`` / ``ssl.engine.id`` and
``ssl.providers`` load OpenSSL engines and providers, and ``sasl.kerberos.kinit.cmd`` is a shell
command, run on the client's creation with ``%{sasl.kerberos.principal}`` and
``%{sasl.kerberos.keytab}`` pasted into it (so those two may hold only characters a shell takes
as they are). Among the Java client's, every ``*.class`` / ``*.classes`` setting names classes it
loads (login, callbacks, interceptors, metric reporters, assignors, deserializers, security
providers, config providers), and ``sasl.jaas.config`` names a login module: only Kafka's own and
Kerberos' are taken. gryph reads the data a suite declares; it never lets a suite run code.
"""

from __future__ import annotations

import re

_LOADS_CODE = {
    "plugin.library.paths": "librdkafka loads the native libraries it names",
    "ssl.engine.location": "OpenSSL loads the engine library it names",
    "ssl.engine.id": "OpenSSL loads the engine it names",
    "ssl.providers": "OpenSSL 3 loads the providers it names",
    "sasl.kerberos.kinit.cmd": "the client runs it as a shell command",
    "interceptor.classes": "Kafka's Java client loads the classes it names",
    "metric.reporters": "Kafka's Java client loads the classes it names",
    "partition.assignment.strategy": "Kafka's Java client loads the classes it names (gryph assigns partitions itself)",
    "key.deserializer": "Kafka's Java client loads the class it names",
    "value.deserializer": "Kafka's Java client loads the class it names",
    "security.providers": "Kafka's Java client loads the classes it names",
    "config.providers": "Kafka's Java client loads the config providers it names (they read files and more)",
}
# pasted into librdkafka's default kinit command: a character a shell reads is a command
_IN_KINIT_COMMAND = ("sasl.kerberos.principal", "sasl.kerberos.keytab")
_INERT = re.compile(r"[\w.@/+=:,~-]+")
# the login modules of Kafka (PLAIN, SCRAM, OAUTHBEARER) and the JDK's Kerberos module
_LOGIN_MODULES = (
    "org.apache.kafka.common.security.plain.PlainLoginModule",
    "org.apache.kafka.common.security.scram.ScramLoginModule",
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
    "com.sun.security.auth.module.Krb5LoginModule",
)
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def refused_setting(key: str, value: object) -> str | None:
    """Why the consumer setting ``key`` (without the ``kafka.`` prefix) with ``value`` is refused,
    or None when it is taken."""
    name = key.strip().lower()
    if name in _LOADS_CODE:
        return _LOADS_CODE[name]
    if name.startswith("config.providers."):
        return _LOADS_CODE["config.providers"]
    if name.endswith((".class", ".classes")):
        return "Kafka's Java client loads the classes it names"
    if name in _IN_KINIT_COMMAND and not _INERT.fullmatch(str(value)):
        return "librdkafka pastes it into a shell command: only letters, digits and . @ / + = : , ~ - are taken"
    if name == "sasl.jaas.config":
        unquoted = _QUOTED.sub('""', str(value))  # a quoted password may hold a ';'
        modules = [entry.split()[0] for entry in unquoted.split(";") if entry.strip()]
        unknown = next((module for module in modules if module not in _LOGIN_MODULES), None)
        if unknown is not None:
            return f"it names the login module {unknown!r}: only {', '.join(_LOGIN_MODULES)} are taken"
    return None
