#!/bin/sh
# layout.sh BUILD - the layout's house rules (tests/layout.py) on a build.
exec python3 "$(dirname "$0")/layout.py" "$@"
