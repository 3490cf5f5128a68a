"""The HTML report and its chart images a command writes (``run``, ``report``)."""

from __future__ import annotations

import argparse

from ..results.document import ResultDocument
from ..results.output_files import check_writable_path, write_whole


def wants_report(args: argparse.Namespace) -> bool:
    return any(option is not None for option in (args.html, args.png, args.svg))


def check_report_outputs(args: argparse.Namespace) -> None:
    """The report's paths, refused before a run when they can never be written."""
    if args.html is not None:
        check_writable_path("--html", args.html)
    for option, folder in (("--png", args.png), ("--svg", args.svg)):
        if folder is not None:
            check_writable_path(option, folder, folder=True)


def write_report(documents: list[ResultDocument], args: argparse.Namespace) -> None:
    """The report of the newest of ``documents``: its page and images, each file written whole."""
    from ..outputs.html import Report  # altair takes half a second to import: only runs with a report pay it

    report = Report(documents, strict=getattr(args, "strict", False))  # `report` has no --strict
    if args.html is not None:  # from redacted documents; its scripts are code, not text to redact
        write_whole(report.html(), args.html)
    for kind in ("png", "svg"):
        if getattr(args, kind) is not None:
            report.write_images(getattr(args, kind), kind)
