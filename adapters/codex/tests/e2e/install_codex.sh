#!/usr/bin/env bash
# Install the pinned Codex CLI from the npm registry into a cache directory and
# print the path of its `codex` program. Re-running reuses the install.
#
#   install_codex.sh [VERSION]      (default: $CODEX_VERSION, else 0.169.0)
#
# The native binary arrives as an npm optional dependency (an alias of the same
# package with a platform suffix); nothing is fetched from outside the registry.
# Cache: ${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}/@openai/codex@VERSION
set -euo pipefail

version="${1:-${CODEX_VERSION:-0.169.0}}"
cache="${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/signet-sdk/npm}"
prefix="${cache}/@openai/codex@${version}"
bin="${prefix}/node_modules/.bin/codex"

installed() {
    [ -x "${bin}" ] && "${bin}" --version 2>/dev/null | grep -q " ${version}\$"
}

if ! command -v npm >/dev/null 2>&1; then
    echo "install_codex.sh: npm is not installed (Codex comes from the npm registry)" >&2
    exit 3
fi

if installed; then
    echo "${bin}"
    exit 0
fi

mkdir -p "${prefix}"
npm install --prefix "${prefix}" --no-audit --no-fund --loglevel=error \
    "@openai/codex@${version}" >&2
if ! installed; then
    echo "install_codex.sh: ${bin} is not codex ${version} after npm install" >&2
    exit 1
fi
echo "${bin}"
