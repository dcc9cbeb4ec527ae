#!/bin/sh
# outputs.sh BUILD - the output path options (tests/outputs.py) on a build.
exec python3 "$(dirname "$0")/outputs.py" "$@"
