#!/usr/bin/env bash
# Prints the comment density of each module of Sources and each folder of
# LiveTableCore (issue 26): comment lines per code line, as
# CommentDensityTests counts them (that test holds the listed folders at 0.3).
#
#   scripts/comment-density.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import os

def count(text):
    """Comment lines (only //, ///, or inside /* */) and code lines (any other non-blank)."""
    comments = code = 0
    state, depth = "code", 0
    for line in text.split("\n"):
        if state == "string":
            state = "code"  # a one-line string ends with its line
        has_code = state == "mstring"
        has_comment = state == "block"
        i, n = 0, len(line)
        while i < n:
            if state == "code":
                if line.startswith("//", i):
                    has_comment = True
                    break
                if line.startswith("/*", i):
                    state, depth, has_comment = "block", 1, True; i += 2
                elif line.startswith('"""', i):
                    state, has_code = "mstring", True; i += 3
                elif line[i] == '"':
                    state, has_code = "string", True; i += 1
                else:
                    has_code = has_code or not line[i].isspace(); i += 1
            elif state == "block":
                if line.startswith("*/", i):
                    depth -= 1; i += 2
                    if depth == 0:
                        state = "code"
                elif line.startswith("/*", i):
                    depth += 1; i += 2
                else:
                    i += 1
            elif state == "string":
                if line[i] == "\\":
                    i += 2
                else:
                    if line[i] == '"':
                        state = "code"
                    i += 1
            else:  # mstring
                if line.startswith('"""', i):
                    state = "code"; i += 3
                else:
                    i += 2 if line[i] == "\\" else 1
        if has_code:
            code += 1
        elif has_comment:
            comments += 1
    return comments, code

totals = {}
for root, _, files in os.walk("Sources"):
    for name in files:
        if not name.endswith(".swift"):
            continue
        path = os.path.join(root, name)
        parts = os.path.relpath(path, "Sources").split(os.sep)
        keys = [parts[0]]
        if parts[0] == "LiveTableCore" and len(parts) > 2:
            keys.append("/".join(parts[:2]))
        with open(path, encoding="utf-8") as f:
            c, k = count(f.read())
        for key in keys:
            tc, tk = totals.get(key, (0, 0))
            totals[key] = (tc + c, tk + k)
for key in sorted(totals):
    c, k = totals[key]
    print(f"{key:30} {c / k if k else 0:5.2f}  ({c} comment lines, {k} code lines)")
PY
