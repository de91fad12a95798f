#!/usr/bin/env python3
"""docs/development/architecture.md's trace of a 499 ("## Following a 499") names functions and the files
that hold them: each step's file must exist under Sources/PortalAuth, and each function it names must be
defined there (`func NAME`, in the step's file for the name just before the dash, anywhere in the library
for the others). A rename or a move that leaves the trace behind fails here.
  scripts/checks/architecture-trace.py [ARCHITECTURE.md]"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LIBRARY = os.path.join(ROOT, "Sources", "PortalAuth")


def steps(text):
    """The numbered lines of the trace's section, each with its continuation lines."""
    section = text.split("## Following a 499", 1)[1].split("\n#", 1)[0]
    found, current = [], None
    for line in section.splitlines():
        if re.match(r"^\d+\. ", line):
            current = [line]
            found.append(current)
        elif current is not None and line.startswith("   ") and line.strip():
            current.append(line.strip())
        else:
            current = None
    return [" ".join(step) for step in found]


def defines(path, name):
    with open(path, encoding="utf-8") as f:
        return re.search(r"\bfunc %s\b" % re.escape(name), f.read()) is not None


def library_files():
    for folder, _, names in os.walk(LIBRARY):
        for name in names:
            if name.endswith(".swift"):
                yield os.path.join(folder, name)


def check(step, previous_file):
    """The problems of one step, and the file it names (for a later "same file")."""
    problems = []
    before, dash, after = step.partition(" — ")
    if not dash:
        return problems, previous_file
    paths = re.findall(r"`([A-Za-z+/]+(?:\.swift|/))`", after)
    file = previous_file if after.startswith("same file") else (paths[0] if paths else None)
    for path in paths:
        if not os.path.exists(os.path.join(LIBRARY, path)):
            problems.append("%s: no such file or folder under Sources/PortalAuth" % path)
    names = [re.sub(r"\(.*", "", n).split(".")[-1] for n in re.findall(r"`([A-Za-z][\w.]*(?:\([^`]*\))?)`", before)]
    for index, name in enumerate(names):
        last = index == len(names) - 1
        if last and file and file.endswith(".swift") and os.path.exists(os.path.join(LIBRARY, file)):
            if not defines(os.path.join(LIBRARY, file), name):
                problems.append("func %s is not in %s" % (name, file))
        elif not any(defines(path, name) for path in library_files()):
            problems.append("func %s is nowhere in Sources/PortalAuth" % name)
    return problems, file


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "development", "architecture.md")
    with open(path, encoding="utf-8") as f:
        found = steps(f.read())
    if len(found) < 10:
        print("architecture-trace: found %d steps in the 499 trace, expected at least 10" % len(found))
        return 1
    failed, previous = False, None
    for number, step in enumerate(found, 1):
        problems, previous = check(step, previous)
        for problem in problems:
            print("architecture-trace: step %d: %s" % (number, problem))
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
