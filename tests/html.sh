#!/bin/sh
# html.sh BUILD... - `loomc bench --html` opened in headless Chromium
# (tests/html_check.py) on each build; an 'html: N passed, N failed' line each.
status=0
for build in "$@"; do
    python3 "$(dirname "$0")/html_check.py" "$build" || status=1
done
exit $status
