#!/bin/sh
# deps.sh PACKAGE... - install the Debian packages loomc needs when any is missing.
# Runs apt-get only when something is absent, so repeated builds stay quick.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "loomc: installing Debian packages:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || { echo "loomc: apt-get update failed" >&2; exit 1; }
$SUDO apt-get install -y -qq $missing >/dev/null || { echo "loomc: could not install:$missing" >&2; exit 1; }
