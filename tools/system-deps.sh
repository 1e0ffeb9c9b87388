#!/usr/bin/env bash
# The Debian packages the project needs: graphviz (`dot` draws every graph), chromium (the site's page
# tests), a C compiler (limn's c device). Installs what is missing when run as root, else says what to run.
set -euo pipefail
need=()
command -v dot >/dev/null 2>&1 || need+=(graphviz)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v cc >/dev/null 2>&1 || need+=(gcc)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages: ${need[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
else
  echo "limn needs these Debian packages: ${need[*]}" >&2
  echo "install them with: sudo apt-get install ${need[*]}" >&2
  exit 1
fi
