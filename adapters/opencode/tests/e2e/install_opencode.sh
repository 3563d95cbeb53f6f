#!/usr/bin/env bash
# Install the pinned OpenCode from the npm registry into a cache directory and
# print the path of its `opencode` program. Re-running reuses the install.
#
#   install_opencode.sh [VERSION]      (default: $OPENCODE_VERSION, else 1.18.33)
#
# Cache: ${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}/opencode-ai@VERSION
# The npm package's postinstall links the platform binary (itself an npm
# package) over a stub; nothing is fetched from outside the registry.
set -euo pipefail

version="${1:-${OPENCODE_VERSION:-1.18.33}}"
cache="${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/signet-sdk/npm}"
prefix="${cache}/opencode-ai@${version}"
bin="${prefix}/node_modules/.bin/opencode"
manifest="${prefix}/node_modules/opencode-ai/package.json"

installed() {
    [ -x "${bin}" ] && [ -f "${manifest}" ] &&
        node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
            "${manifest}" "${version}" &&
        # The stub left when the postinstall did not run is a few hundred bytes.
        [ "$(wc -c < "$(readlink -f "${bin}")")" -gt 1000000 ]
}

if ! command -v npm >/dev/null 2>&1; then
    echo "install_opencode.sh: npm is not installed (OpenCode comes from the npm registry)" >&2
    exit 3
fi

if installed; then
    echo "${bin}"
    exit 0
fi

mkdir -p "${prefix}"
npm install --prefix "${prefix}" --no-audit --no-fund --loglevel=error \
    "opencode-ai@${version}" >&2
if ! installed; then
    echo "install_opencode.sh: ${bin} is not OpenCode ${version} after npm install" >&2
    exit 1
fi
echo "${bin}"
