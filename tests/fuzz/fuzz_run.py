"""``make fuzz N=100000``: mutate the repository's suites and configs N times, then run N/10
generated command lines (database URLs, notify URLs, Griffin env files and sinks, CLI arguments and output
paths: fuzz_generators.py) and N/100 mutations of a stream state's and a history's values
(stored_files.py), and report every input that does not end in a result or a located
gryph error (see fuzz_support.py). Failures are written to a folder as files, ready to become
regression cases."""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

from tests.fuzz.fuzz_generators import command_outcome, generated_cases
from tests.fuzz.fuzz_support import Workspace, cases, outcome, parsers_disagree
from tests.fuzz.stored_files import StoredFiles, stored_cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", type=Path, default=Path("fuzz-failures"), help="where failing inputs go")
    args = parser.parse_args()
    from gryph.local_backend.engine import DuckDBEngine

    engine = DuckDBEngine()
    workspace = Workspace()
    failures = collections.Counter()
    started = time.perf_counter()
    try:
        for number, case in enumerate(cases(args.seed, args.cases)):
            path = workspace.place(case)
            problem = outcome(path, engine) or parsers_disagree(case)
            if problem is None:
                continue
            failures[problem[:80]] += 1
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{number:06d}-{case.seed.stem}{case.suffix}").write_bytes(path.read_bytes())
            print(f"case {number} ({case.seed.name}, {case.mutation}): {problem}", file=sys.stderr)
        for number, command in enumerate(generated_cases(args.seed, args.cases // 10)):
            problem = command_outcome(command, workspace.root)
            if problem is None:
                continue
            failures[problem[:80]] += 1
            args.save.mkdir(parents=True, exist_ok=True)
            saved = {"argv": command.argv, "files": command.files}
            (args.save / f"command-{number:06d}.json").write_text(json.dumps(saved, indent=2), encoding="utf-8")
            print(f"command {number}: {problem}", file=sys.stderr)
        stored = StoredFiles(workspace.root / "stored")
        for kind in ("state", "history"):  # a stream state's and a history's values mutated
            for number, stored_case in enumerate(stored_cases(stored, kind, args.seed, args.cases // 100)):
                problem = stored.outcome(stored_case)
                if problem is not None:
                    failures[problem[:80]] += 1
                    print(f"{kind} {number}: {problem}", file=sys.stderr)
    finally:
        workspace.close()
        engine.close()
    total = sum(failures.values())
    print(
        f"{args.cases} cases and {args.cases // 10} command lines in {time.perf_counter() - started:.0f} s: {total} failures"
    )
    for kind, count in failures.most_common():
        print(f"  {count:6d}  {kind}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
