"""``gryph spark start | status | stop``: a local Spark Connect server kept running between runs,
which ``--remote local`` then uses (client/spark/session/warm_server.py)."""

from __future__ import annotations

import argparse

from .exit_codes import EXIT_FAILED, EXIT_OK

ACTIONS = ("start", "status", "stop")


def add_spark_options(spark: argparse.ArgumentParser) -> None:
    spark.add_argument("action", choices=ACTIONS, help="start the server, say whether it runs, or stop it")


def spark_command(args: argparse.Namespace) -> int:
    # loaded here: the other commands do not pay for the Spark engine's modules
    from gryph.client.spark.session.warm_server import running_server, start_server, stop_server

    if args.action == "start":
        kept, started = start_server()
        verb = "started" if started else "already running:"
        print(f"{verb} a local Spark {kept.spark_version} Connect server at {kept.url} (process group {kept.pid})")
        print("`--remote local` uses it until `gryph spark stop`")
        return EXIT_OK
    if args.action == "status":
        server = running_server()
        if server is None:
            print("no local Spark server is running (`gryph spark start` starts one)")
            return EXIT_FAILED
        print(
            f"running: Spark {server.spark_version} at {server.url} (process group {server.pid}, logs in {server.folder})"
        )
        return EXIT_OK
    stopped = stop_server()
    print(
        "no local Spark server was running" if stopped is None else f"stopped the local Spark server at {stopped.url}"
    )
    return EXIT_OK
