#!/usr/bin/env bash
# Lists the Swift functions (func, init, deinit, subscript) longer than a screen: more than
# MAX lines (60) from the line of their keyword to their closing brace. One line per function:
#   LINES PATH:LINE NAME
# longest first; exits 1 when there is one, so CI can hold a folder at none.
#   scripts/checks/long-functions.sh [--max N] [PATH...]     (default: Sources Plugins)
# A small scanner, not a Swift parser: it skips comments and string literals (with their
# interpolations, multi-line and raw strings) and counts braces; a requirement in a protocol has
# no body and is not a function here.
set -euo pipefail
cd "$(dirname "$0")/../.."
max=60
if [ "${1:-}" = "--max" ]; then
  max=$2
  shift 2
fi
[ $# -gt 0 ] || set -- Sources Plugins
scanner=$(
  cat <<'PYTHON'
import re
import sys

KEYWORDS = {"func", "init", "deinit", "subscript"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def code_tokens(text):
    """Yields (line, token) for the code of a Swift file: identifiers and the characters
    {}()[]. (a string literal's interpolations are code too); comments and literal text are
    left out."""
    i, line, n = 0, 1, len(text)
    # What encloses the scanner: ("code", depth of parens inside an interpolation) or
    # ("string", hashes, multiline).
    stack = [("code", 0)]
    while i < n:
        c = text[i]
        top = stack[-1]
        if top[0] == "string":
            _, hashes, multiline = top
            if c == "\n":
                line += 1
                i += 1
                continue
            if c == "\\" and text.startswith("#" * hashes, i + 1):
                after = i + 1 + hashes
                if after < n and text[after] == "(":
                    stack.append(("code", 0))
                    i = after + 1
                    continue
                i = after + 1
                if i <= n and text[i - 1] == "\n":
                    line += 1
                continue
            closing = ('"""' if multiline else '"') + "#" * hashes
            if text.startswith(closing, i):
                stack.pop()
                i += len(closing)
                continue
            i += 1
            continue
        # Code.
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        line += 1
                    i += 1
        elif c == "#" or c == '"':
            hashes = 0
            while i + hashes < n and text[i + hashes] == "#":
                hashes += 1
            start = i + hashes
            if start < n and text[start] == '"':
                multiline = text.startswith('"""', start)
                stack.append(("string", hashes, multiline))
                i = start + (3 if multiline else 1)
            else:
                i += max(hashes, 1)
        elif c == "(" and len(stack) > 1:
            stack[-1] = ("code", top[1] + 1)
            yield line, c
            i += 1
        elif c == ")" and len(stack) > 1:
            if top[1] == 0:
                stack.pop()  # the end of an interpolation
            else:
                stack[-1] = ("code", top[1] - 1)
                yield line, c
            i += 1
        elif c in "{}()[].":
            yield line, c
            i += 1
        else:
            match = IDENTIFIER.match(text, i)
            if match:
                yield line, match.group(0)
                i = match.end()
            else:
                i += 1


def long_functions(path, limit):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    found = []
    braces = []  # per open brace: ("function", name, line) or ("protocol",) or ("other",)
    pending = None  # a declaration whose body has not opened: (kind, name, line, paren depth)
    parens = 0
    previous = None
    expect_name = None
    for line, token in code_tokens(text):
        if token in "([":
            parens += 1
        elif token in ")]":
            parens -= 1
        elif token == "{":
            if pending and parens == pending[3]:
                braces.append(("function", pending[1], pending[2]) if pending[0] == "function" else (pending[0],))
                pending = None
            else:
                braces.append(("other",))
        elif token == "}":
            if braces:
                opened = braces.pop()
                if opened[0] == "function" and line - opened[2] + 1 > limit:
                    found.append((line - opened[2] + 1, path, opened[2], opened[1]))
        elif token in KEYWORDS and previous != ".":
            inside_protocol = braces and braces[-1][0] == "protocol"
            if not inside_protocol:
                pending = ("function", token, line, parens)
                expect_name = token == "func"
        elif token == "protocol" and previous != ".":
            pending = ("protocol", None, line, parens)
        elif expect_name and pending and IDENTIFIER.fullmatch(token):
            pending = (pending[0], token, pending[2], pending[3])
            expect_name = False
        previous = token
    return found


limit = int(sys.argv[1])
everything = []
for path in sys.argv[2:]:
    everything += long_functions(path, limit)
for length, path, line, name in sorted(everything, key=lambda f: (-f[0], f[1], f[2])):
    print(f"{length} {path}:{line} {name}")
sys.exit(1 if everything else 0)
PYTHON
)
find "$@" -name '*.swift' -print0 | sort -z | xargs -0 python3 -c "$scanner" "$max" || exit 1
