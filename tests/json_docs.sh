#!/bin/sh
# json_docs.sh BUILD... - the JSON documents and --json's errors
# (tests/json_docs.py) on each build; a 'json: N passed, N failed' line each.
status=0
for build in "$@"; do
    python3 "$(dirname "$0")/json_docs.py" "$build" || status=1
done
exit $status
