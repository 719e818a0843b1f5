#!/usr/bin/env bash
# Installs what `make demo` and `make test` need on a fresh Debian/Ubuntu machine, and nothing when
# it is already there: Java 17+ and Maven (the local Kafka broker), PostgreSQL's server programs,
# Chromium (rendered-preview checks), and this project with its dev extras (pip, editable).
# Kafka's jars are not installed here: `multiqa dev up` downloads them on first use (cached).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else echo "setup: error: need root to run: $* (run as root or install sudo)" >&2; return 1
    fi
}

packages=()
command -v java >/dev/null 2>&1 || [ -x "${JAVA_HOME:-/nonexistent}/bin/java" ] \
    || packages+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || packages+=(maven)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || packages+=(postgresql)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
if [ ${#packages[@]} -gt 0 ]; then
    echo "setup: installing ${packages[*]} with apt-get"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${packages[@]}"
fi

# pip only when pyproject.toml changed since the last install from this checkout.
stamp_dir=${MULTIQA_CACHE_DIR:-.cache}/setup
stamp="$stamp_dir/pip-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ] || ! "$PYTHON" -c "import streams.cli" >/dev/null 2>&1; then
    echo "setup: pip install -e '.[dev,otlp]'"
    "$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore -e '.[dev,otlp]'
    mkdir -p "$stamp_dir"
    rm -f "$stamp_dir"/pip-*
    touch "$stamp"
fi
