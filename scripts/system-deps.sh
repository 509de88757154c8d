#!/usr/bin/env bash
# Installs the system packages Tidy needs to build and test on Debian/Ubuntu (idempotent; skips what is there):
# compilers for the native modules (better-sqlite3, keytar), libsecret for keytar, a Secret Service
# (gnome-keyring + D-Bus) for the keychain tests, Chromium + Xvfb for the end-to-end UI tests, rclone (its
# `serve webdav`) for the sync tests against a real WebDAV server.
set -euo pipefail

packages=(python3 make g++ pkg-config libsecret-1-dev gnome-keyring dbus dbus-x11 chromium xvfb rclone)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: not a Debian-like system; install the equivalents of: ${packages[*]}" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=''
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "system-deps: run as root to install: ${missing[*]}" >&2; exit 1; }
  sudo='sudo'
fi
echo "system-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
