#!/usr/bin/env bash
# The repository explains itself: no file refers to documents outside it (a sibling workshop folder, or the
# sections of a spec that is not here). Behaviour is written down in docs/, the header and the README.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='\.\./shared|SPEC( §|\.md| [0-9])'
self=scripts/check-self-contained.sh
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    found=$(git grep -nIE "$pattern" -- . ":!$self" || true)
else
    found=$(grep -rnIE "$pattern" --exclude-dir=.git --exclude-dir='.build*' --exclude-dir=build --exclude-dir=bench/work \
        --exclude=check-self-contained.sh . || true)
fi
if [ -n "$found" ]; then
    echo "check-self-contained: references to documents outside the repository:"
    echo "$found"
    exit 1
fi
echo "check-self-contained: ok"
