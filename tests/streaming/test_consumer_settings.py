"""Kafka consumer settings that would make the client load code or run a command (librdkafka's
plugin.library.paths, OpenSSL engines and providers, the kinit command and what is pasted into it;
the Java client's classes and login modules) are refused at validate, located, in a suite and in a
Griffin job; the settings a broker with TLS or SASL needs are taken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gryph.client.cli.main import main
from gryph.compiler.errors import InvalidInput
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.sources.kafka.consumer import consumer_config

SUITE = 'source s = kafka("127.0.0.1:9", topic = "t", format = "text",\n    {key} = "{value}")\nprofiling p on s: count(*) as n\n'
PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule required username=\\"u\\" password=\\"p;w\\";'


def _validate(tmp_path: Path, capsys, key: str, value: str) -> tuple[int, str]:
    suite = tmp_path / "s.dq"
    suite.write_text(SUITE.format(key=key, value=value), encoding="utf-8")
    code = main(["validate", str(suite)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("kafka.plugin.library.paths", "/tmp/libevil"),
        ("kafka.ssl.engine.location", "/tmp/libengine.so"),
        ("kafka.ssl.engine.id", "dynamic"),
        ("kafka.ssl.providers", "/tmp/provider"),
        ("kafka.sasl.kerberos.kinit.cmd", "touch /tmp/owned"),
        ("kafka.SASL.Kerberos.Kinit.Cmd", "touch /tmp/owned"),  # names are matched whatever their case
        ("kafka.sasl.kerberos.principal", "me; touch /tmp/owned"),
        ("kafka.sasl.kerberos.keytab", "$(touch /tmp/owned)"),
        ("kafka.interceptor.classes", "com.example.Spy"),
        ("kafka.sasl.login.callback.handler.class", "com.example.Handler"),
        ("kafka.ssl.engine.factory.class", "com.example.Factory"),
        ("kafka.config.providers", "file"),
        ("kafka.config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider"),
        ("kafka.metric.reporters", "com.example.Reporter"),
        ("kafka.sasl.jaas.config", "com.sun.security.auth.module.JndiLoginModule required user.provider.url=x;"),
        ("kafka.sasl.jaas.config", PLAIN + " com.example.Second required;"),  # every entry is a known module
    ],
)
def test_a_setting_that_loads_code_or_runs_a_command_is_refused_at_validate(tmp_path, capsys, key, value):
    code, err = _validate(tmp_path, capsys, key, value)
    assert code == 2
    assert "s.dq:1:1: error BAD_SOURCE" in err
    assert f"the consumer setting {key} is refused" in err and f"near: {key}" in err


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("kafka.security.protocol", "SASL_SSL"),
        ("kafka.sasl.jaas.config", PLAIN),  # the ';' inside the quoted password is no second entry
        ("kafka.sasl.kerberos.principal", "gryph/host.example.org@EXAMPLE.ORG"),
        ("kafka.sasl.kerberos.keytab", "/etc/security/keytabs/gryph.keytab"),
        ("kafka.ssl.ca.location", "/etc/ssl/certs/ca.pem"),
    ],
)
def test_the_settings_of_a_secured_broker_are_taken(tmp_path, capsys, key, value):
    code, err = _validate(tmp_path, capsys, key, value)
    assert code == 0, err


def test_a_spec_built_in_python_is_refused_before_any_consumer_is_made():
    spec = SourceSpec(
        "s", "kafka", ("127.0.0.1:9",), options=(("topic", "t"), ("kafka.plugin.library.paths", "/tmp/libevil"))
    )
    with pytest.raises(InvalidInput) as raised:
        consumer_config(spec)
    assert raised.value.code == "BAD_SOURCE" and "plugin.library.paths" in raised.value.message


def test_a_griffin_job_is_refused_at_the_setting(tmp_path, capsys):
    configs = Path(__file__).parents[1] / "data" / "griffin" / "streaming"
    job = json.loads((configs / "_completeness-streaming-griffindsl.json").read_text(encoding="utf-8"))
    job["data.sources"][0]["connector"]["config"]["kafka.config"]["plugin.library.paths"] = "/tmp/libevil"
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job, indent=2), encoding="utf-8")
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "plugin.library.paths" in text)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"job.json:{line}:" in err and "BAD_CONFIG" in err
    assert "the consumer setting plugin.library.paths is refused: librdkafka loads the native libraries" in err
