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
        options = sorted(self._option_strings())
        for word in unrecognized.group(1).split():
            if word.startswith("-"):
                near = closest(word.split("=", 1)[0], options)
                if near is not None:
                    return f"did you mean {near!r} (for {word!r})?"
        return None

    def _option_strings(self) -> set[str]:
        """Every option of this parser and of its sub-commands' parsers (argparse reports an
        unknown option of a sub-command from the top parser)."""
        found: set[str] = set()
        for action in self._actions:
            found.update(option for option in action.option_strings if option.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                for parser in action.choices.values():
                    if isinstance(parser, HintingParser):
                        found |= parser._option_strings()
        return found
