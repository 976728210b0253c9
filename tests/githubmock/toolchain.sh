#!/usr/bin/env bash
# Installs the tools the pull-request posting tests need and prints where they are, as shell assignments
# to eval: PRISM (the Stoplight Prism CLI), GITHUB_OPENAPI (GitHub's REST description, api.github.com)
# and GITHUB_GRAPHQL_SCHEMA (GitHub's GraphQL schema, as an introspection result).
#
# All three come from the npm registry. @octokit/openapi is about 385 MB unpacked, so it never goes into
# the repository: installs are cached under $PRSCOPE_GITHUB_MOCK_CACHE (default
# ~/.cache/prscope-github-mock), keyed by version; an entry counts only once its stamp is written, so an
# interrupted install is redone rather than trusted (the same scheme as editor-client/e2e/toolchain.sh).
set -euo pipefail

PRISM_VERSION=5.16.0
OPENAPI_VERSION=23.0.2
GRAPHQL_SCHEMA_VERSION=15.26.1
CACHE=${PRSCOPE_GITHUB_MOCK_CACHE:-$HOME/.cache/prscope-github-mock}
NAME=tools-prism-$PRISM_VERSION-openapi-$OPENAPI_VERSION-graphql-$GRAPHQL_SCHEMA_VERSION

log() { echo "prscope github mock toolchain: $*" >&2; }

install_tools() {
  npm install --prefix "$STAGE" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "@stoplight/prism-cli@$PRISM_VERSION" "@octokit/openapi@$OPENAPI_VERSION" \
    "@octokit/graphql-schema@$GRAPHQL_SCHEMA_VERSION" >&2
  "$STAGE/node_modules/.bin/prism" --version >/dev/null
}

main() {
  command -v npm >/dev/null || { log "npm is not installed (Node 20 and npm are needed)"; exit 2; }
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
  local target=$CACHE/$NAME
  if [ ! -f "$target/.complete" ]; then
    rm -rf "$target" "$target.partial"
    STAGE=$target.partial
    mkdir -p "$STAGE"
    log "installing @stoplight/prism-cli@$PRISM_VERSION, @octokit/openapi@$OPENAPI_VERSION, @octokit/graphql-schema@$GRAPHQL_SCHEMA_VERSION"
    install_tools
    touch "$STAGE/.complete"
    mv "$STAGE" "$target"
  fi
  local modules=$target/node_modules
  echo "PRISM=$modules/.bin/prism"
  echo "GITHUB_OPENAPI=$modules/@octokit/openapi/generated/api.github.com.json"
  echo "GITHUB_GRAPHQL_SCHEMA=$modules/@octokit/graphql-schema/schema.json"
}

main "$@"
