#!/usr/bin/env bash
# Builds ReactiveGRDB's DocC catalog with the toolchain's docc, and fails on
# any warning, on a public symbol without documentation, or on articles that
# differ from Docs/ReactiveGRDB.md (scripts/docc-catalog.py makes them).
#
#   scripts/docc.sh                 # check; the archive is thrown away
#   scripts/docc.sh OUTPUT_DIR      # keep the archive in OUTPUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."

python3 scripts/docc-catalog.py --check

docc=$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
output=${1:-$work/ReactiveGRDB.doccarchive}

# The public symbols of ReactiveGRDB, with its extensions of GRDB's types,
# emitted by the compiler as it builds that target alone: `swift package
# dump-symbol-graph` wants every module built, the tests' too, and fails in a
# fresh clone. Its own build directory keeps the usual one's flags intact; an
# unchanged module is not compiled again, so its graphs stay there too.
graphs="$PWD/.build-docc/symbol-graphs"
mkdir -p "$graphs"
swift build --target ReactiveGRDB --scratch-path .build-docc \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -symbol-graph-skip-synthesized-members -Xswiftc -emit-extension-block-symbols \
    >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
mkdir "$work/symbols"
cp "$graphs"/ReactiveGRDB.symbols.json "$graphs"/ReactiveGRDB@*.symbols.json "$work/symbols/"

rm -rf "$output"
"$docc" convert Sources/ReactiveGRDB/ReactiveGRDB.docc \
    --additional-symbol-graph-dir "$work/symbols" \
    --output-dir "$output" \
    --fallback-display-name ReactiveGRDB --fallback-bundle-identifier ReactiveGRDB \
    --warnings-as-errors \
    --experimental-documentation-coverage --coverage-summary-level brief

python3 - "$output/documentation-coverage.json" <<'PYTHON'
import json, sys
missing = [entry["referencePath"] for entry in json.load(open(sys.argv[1]))
           if entry["kind"]["isSymbol"] and not entry["hasAbstract"]]
for path in missing:
    print(f"error: no documentation: {path}", file=sys.stderr)
sys.exit(1 if missing else 0)
PYTHON
echo "DocC: ReactiveGRDB built without warnings, every public symbol documented."
