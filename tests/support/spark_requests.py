"""The requests a Spark engine's session sends the server, spied on by kind (each is a round trip)."""

from __future__ import annotations


def requests_sent(engine, monkeypatch) -> list[tuple[str, str]]:
    """Every analyze and execute request the engine's session sends from now on, by kind."""
    client = engine.spark.client
    sent: list[tuple[str, str]] = []
    analyze, execute = client._analyze, client._execute_and_fetch

    def spy_analyze(method, **kwargs):
        sent.append(("analyze", method))
        return analyze(method, **kwargs)

    def spy_execute(req, *args, **kwargs):
        kind = req.plan.WhichOneof("op_type")
        sent.append(("execute", req.plan.command.WhichOneof("command_type") if kind == "command" else kind))
        return execute(req, *args, **kwargs)

    monkeypatch.setattr(client, "_analyze", spy_analyze)
    monkeypatch.setattr(client, "_execute_and_fetch", spy_execute)
    return sent
