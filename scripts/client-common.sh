# Sourced by the scripts/client-*.sh scripts (`. client-common.sh`), which
# build a client we did not write against a prefix and run its tests.
#
#   client_init NAME VERSION "$@"
#       checks the arguments (one PREFIX holding lib/libblosc2.so.9 and
#       include/blosc2.h) and sets P (the prefix, absolute), CACHE (this
#       client version's cache directory, made) and py (the python of a
#       venv in CACHE, made if missing).
#   headers_key
#       prints a short hash of P's headers: builds depend on the headers
#       they were compiled with, not on the library, so they are cached
#       under it.
client_init() {
    name=$1
    version=$2
    shift 2
    [ $# -eq 1 ] || {
        echo "usage: $0 PREFIX" >&2
        exit 2
    }
    P=$(cd "$1" && pwd)
    [ -f "$P/lib/libblosc2.so.9" ] && [ -f "$P/include/blosc2.h" ] || {
        echo "$name: $P has no lib/libblosc2.so.9 or include/blosc2.h" >&2
        exit 2
    }
    CACHE=${BLOSC2_CLIENTS_CACHE:-$HOME/.cache/blosc2-clients}/$name-$version
    mkdir -p "$CACHE"
    py=$CACHE/venv/bin/python
    [ -x "$py" ] || python3 -m venv "$CACHE/venv"
}

headers_key() {
    cat "$P"/include/blosc2.h "$P"/include/b2nd.h "$P"/include/blosc2/*.h | sha256sum | cut -c1-16
}
