#!/usr/bin/env bash
# Install the pinned Gemini CLI from the npm registry into a cache directory and
# print the path of its `gemini` program. Re-running reuses the install.
#
#   install_gemini.sh [VERSION]      (default: $GEMINI_CLI_VERSION, else 0.61.0)
#
# Cache: ${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}/@google/gemini-cli@VERSION
# Optional dependencies (a keychain binding, node-pty) are left out: headless
# runs need neither.
set -euo pipefail

version="${1:-${GEMINI_CLI_VERSION:-0.61.0}}"
cache="${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/signet-sdk/npm}"
prefix="${cache}/@google/gemini-cli@${version}"
bin="${prefix}/node_modules/.bin/gemini"

installed() {
    [ -x "${bin}" ] && [ "$("${bin}" --version 2>/dev/null | tail -n 1)" = "${version}" ]
}

if ! command -v npm >/dev/null 2>&1; then
    echo "install_gemini.sh: npm is not installed (Gemini CLI comes from the npm registry)" >&2
    exit 3
fi

if installed; then
    echo "${bin}"
    exit 0
fi

mkdir -p "${prefix}"
npm install --prefix "${prefix}" --no-audit --no-fund --omit=optional --loglevel=error \
    "@google/gemini-cli@${version}" >&2
if ! installed; then
    echo "install_gemini.sh: ${bin} is not gemini ${version} after npm install" >&2
    exit 1
fi
echo "${bin}"
