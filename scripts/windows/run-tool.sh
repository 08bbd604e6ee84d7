#!/bin/sh
# INTEROP_RUNNER for the shared tools built with MinGW (scripts/test-windows.sh):
# runs one under wine, b2check without its per-entry fork, which Windows lacks.
exe=$1
shift
case $exe in
*b2check*) exec "${WINE:-wine}" "$exe" --no-fork "$@" ;;
*) exec "${WINE:-wine}" "$exe" "$@" ;;
esac
