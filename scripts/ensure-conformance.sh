#!/usr/bin/env bash
# Makes the official MCP conformance suite (@modelcontextprotocol/conformance) available to
# the tests and exports the paths of its CLI entry files: HINTGATE_CONFORMANCE (the stable
# release) and HINTGATE_CONFORMANCE_ALPHA (the newest alpha, which carries the 2026-07-28
# scenarios). Each version is installed into .tmp/conformance/<version>/ when missing, kept
# out of the project's package-lock (the suite brings its own SDK v1, express and octokit).
# The suite calls Node 22's fs.globSync in one place (finding expected-failure files, which
# the tests do not use); on Node 20 that import is replaced by a stand-in that finds nothing.
#   node "$HINTGATE_CONFORMANCE" server --url http://127.0.0.1:PORT/mcp --scenario NAME
#   node "$HINTGATE_CONFORMANCE" client --command "CMD" --scenario NAME   (URL appended)
set -euo pipefail

HINTGATE_CONFORMANCE_VERSION=${HINTGATE_CONFORMANCE_VERSION:-0.1.16}
HINTGATE_CONFORMANCE_ALPHA_VERSION=${HINTGATE_CONFORMANCE_ALPHA_VERSION:-0.2.0-alpha.12}

conformance_install() { # version -> prints the CLI entry file
  local version=$1
  local dir
  dir="$(pwd)/.tmp/conformance/$version"
  local pkg="$dir/node_modules/@modelcontextprotocol/conformance"
  if [ ! -f "$pkg/dist/index.js" ] ||
    ! node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
      "$pkg/package.json" "$version"; then
    echo "conformance: installing @modelcontextprotocol/conformance@$version" >&2
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{ "name": "conformance-suite", "private": true }' >"$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
      "@modelcontextprotocol/conformance@$version" >&2)
  fi
  node - "$pkg/dist/index.js" <<'JS'
const fs = require('node:fs');
const file = process.argv[2];
const text = fs.readFileSync(file, 'utf8');
const match = /import\{([^}]*)\}from"fs";/.exec(text);
if (match && match[1].split(',').some((name) => name.startsWith('globSync'))) {
  const names = match[1].split(',');
  const glob = names.find((name) => name.startsWith('globSync'));
  const alias = glob.split(' as ').pop();
  const kept = names.filter((name) => name !== glob).join(',');
  fs.writeFileSync(file, text.replace(match[0], `import{${kept}}from"fs";const ${alias}=()=>[];`));
}
JS
  echo "$pkg/dist/index.js"
}

HINTGATE_CONFORMANCE=$(conformance_install "$HINTGATE_CONFORMANCE_VERSION")
HINTGATE_CONFORMANCE_ALPHA=$(conformance_install "$HINTGATE_CONFORMANCE_ALPHA_VERSION")
export HINTGATE_CONFORMANCE HINTGATE_CONFORMANCE_ALPHA
echo "conformance: $HINTGATE_CONFORMANCE_VERSION and $HINTGATE_CONFORMANCE_ALPHA_VERSION in .tmp/conformance"
