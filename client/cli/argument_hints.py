"""The command line's parser, whose errors name the command or option a typo was near.

argparse says ``invalid choice: 'rn'`` and ``unrecognized arguments: --fromat json``; this
parser adds ``hint: did you mean 'run'?`` (``--format``), from the commands and options it has.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import NoReturn

from gryph.compiler.errors import closest

_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")
_UNRECOGNIZED = re.compile(r"unrecognized arguments: (.*)")


class HintingParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` (its sub-commands' too) whose errors end with a did-you-mean."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._given: list[str] = []

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        # kept for the hint: argparse reports a sub-command's unknown option from the top parser,
        # which then tells which command it was given to
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        hint = self._hint(message)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n" + (f"    hint: {hint}\n" if hint else ""))

    def _hint(self, message: str) -> str | None:
        choice = _INVALID_CHOICE.search(message)
        if choice is not None:
            near = closest(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
            return None if near is None else f"did you mean {near!r}?"
        unrecognized = _UNRECOGNIZED.search(message)
        if unrecognized is None:
            return None
        commands = self._commands()
        command = next((word for word in self._given if word in commands), None)
        own = commands[command]._option_strings() if command is not None else self._option_strings()
        for word in unrecognized.group(1).split():
            if not word.startswith("-"):
                continue
            option = word.split("=", 1)[0]
            elsewhere = [name for name, parser in commands.items() if option in parser._option_strings()]
            if elsewhere and command is not None:
                return f"{option} is an option of gryph {', '.join(elsewhere)}, not of gryph {command}"
            near = closest(option, sorted(own))
            if near is not None:
                return f"did you mean {near!r} (for {word!r})?"
        return None

    def _commands(self) -> dict[str, HintingParser]:
        """The sub-commands' parsers, by name."""
        return {
            name: parser
            for action in self._actions
            if isinstance(action, argparse._SubParsersAction)
            for name, parser in action.choices.items()
            if isinstance(parser, HintingParser)
        }

    def _option_strings(self) -> set[str]:
        """Every option of this parser and of its sub-commands' parsers."""
        found: set[str] = set()
        for action in self._actions:
            found.update(option for option in action.option_strings if option.startswith("--"))
        for parser in self._commands().values():
            found |= parser._option_strings()
        return found
