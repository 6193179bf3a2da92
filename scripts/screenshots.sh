#!/usr/bin/env bash
# Makes the PNG screenshots in screenshots/ from real runs of livetable in
# tmux: builds the app, installs what the renderer needs (tmux, python3-venv,
# the DejaVu fonts; pyte and Pillow in a virtual environment under .build/),
# then runs scripts/screenshots.py.
#
#   scripts/screenshots.sh [output directory, default: screenshots] [--only follow.png|viewer.png|filter.png|postgres.png|sheets.png|prompt.png]
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for pkg in tmux python3-venv fonts-dejavu-core; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

swift build --product livetable

venv=.build/screenshots-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pyte>=0.8" "Pillow>=10"

"$venv/bin/python" scripts/screenshots.py --binary "$(swift build --show-bin-path)/livetable" --output "${1:-screenshots}" "${@:2}"
