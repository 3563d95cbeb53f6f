#!/usr/bin/env bash
# Install the pinned pi coding agent from the npm registry into a cache directory
# and print the path of its `pi` program. Re-running reuses the install.
#
#   install_pi.sh [VERSION]      (default: $PI_VERSION, else 0.73.1)
#
# Cache: ${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}/@mariozechner/pi-coding-agent@VERSION
# pi is pure JavaScript (Node >= 20.6); nothing is fetched from outside the registry.
set -euo pipefail

version="${1:-${PI_VERSION:-0.73.1}}"
cache="${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/signet-sdk/npm}"
prefix="${cache}/@mariozechner/pi-coding-agent@${version}"
bin="${prefix}/node_modules/.bin/pi"
manifest="${prefix}/node_modules/@mariozechner/pi-coding-agent/package.json"

installed() {
    # `pi --version` takes seconds (it loads everything); the manifest says the same.
    [ -x "${bin}" ] && [ -f "${manifest}" ] &&
        node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
            "${manifest}" "${version}"
}

if ! command -v npm >/dev/null 2>&1; then
    echo "install_pi.sh: npm is not installed (pi comes from the npm registry)" >&2
    exit 3
fi

if installed; then
    echo "${bin}"
    exit 0
fi

mkdir -p "${prefix}"
npm install --prefix "${prefix}" --no-audit --no-fund --loglevel=error \
    "@mariozechner/pi-coding-agent@${version}" >&2
if ! installed; then
    echo "install_pi.sh: ${bin} is not pi ${version} after npm install" >&2
    exit 1
fi
echo "${bin}"
