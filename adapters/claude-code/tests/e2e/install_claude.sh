#!/usr/bin/env bash
# Install the pinned Claude Code CLI from the npm registry into a cache directory
# and print the path of its `claude` program. Re-running reuses the install.
#
#   install_claude.sh [VERSION]      (default: $CLAUDE_CODE_VERSION, else 2.1.197)
#
# 2.1.197 is the newest release that installs on Node 20 (its native binary comes
# from the npm platform package, nothing is downloaded from elsewhere).
# Cache: ${SIGNET_E2E_CACHE:-~/.cache/signet-sdk/e2e}/claude-code-VERSION
set -euo pipefail

version="${1:-${CLAUDE_CODE_VERSION:-2.1.197}}"
cache="${SIGNET_E2E_CACHE:-${HOME}/.cache/signet-sdk/e2e}"
prefix="${cache}/claude-code-${version}"
bin="${prefix}/node_modules/.bin/claude"

if ! command -v npm >/dev/null 2>&1; then
    echo "install_claude.sh: npm is not installed (Claude Code comes from the npm registry)" >&2
    exit 3
fi

if [ -x "${bin}" ] && "${bin}" --version 2>/dev/null | grep -q "^${version} "; then
    echo "${bin}"
    exit 0
fi

mkdir -p "${prefix}"
npm install --prefix "${prefix}" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@${version}" >&2
"${bin}" --version >&2
echo "${bin}"
