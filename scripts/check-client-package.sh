#!/usr/bin/env bash
# Follows the guide's Installation literally: a new package, PlayerWatcher,
# with the guide's Package.swift, next to a link named LiveTable to this
# package, and the guide's async main as its program. Builds it, and fails
# on any warning or error of the build (such as pkg-config's "prohibited
# flag(s)"). Not part of .ci/run: it builds GRDB a second time.
#
#   scripts/check-client-package.sh [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work=${1:-$(mktemp -d)}
mkdir -p "$work/PlayerWatcher/Sources/PlayerWatcher"
ln -sfn "$root" "$work/LiveTable"
python3 - "$root/Docs/ReactiveGRDB.md" "$work/PlayerWatcher" <<'PYTHON'
import re, sys
guide = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"(<!--[^\n]*-->\n)?```swift\n(.*?)```", guide, re.S)
manifest = next(code for marker, code in blocks if "Package.swift" in marker)
main = next(code for _, code in blocks if "@main" in code)
declarations = next(code for marker, code in blocks if "file scope" in marker and "struct Player" in code)
open(f"{sys.argv[2]}/Package.swift", "w").write(manifest)
open(f"{sys.argv[2]}/Sources/PlayerWatcher/Declarations.swift", "w").write(
    declarations.split("let dbQueue")[0])
open(f"{sys.argv[2]}/Sources/PlayerWatcher/PlayerWatcher.swift", "w").write(main)
PYTHON
cd "$work/PlayerWatcher"
swift build 2>&1 | tee "$work/build.log"
if grep -E "warning:|error:" "$work/build.log"; then
    echo "The client package's build printed warnings or errors." >&2
    exit 1
fi
echo "The guide's Installation builds as written, without a warning ($work/PlayerWatcher)."
