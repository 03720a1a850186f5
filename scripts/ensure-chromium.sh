#!/usr/bin/env bash
# Makes Debian's Chromium available at /usr/bin/chromium for the dashboard tests (driven by
# playwright-core), installing it with apt-get when it is missing.
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  echo "chromium: not installed; installing Debian's chromium"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
