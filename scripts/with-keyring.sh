#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with a throwaway, unlocked GNOME keyring, so keytar talks
# to a real Secret Service on a headless machine (CI, containers) without touching the user's own keyring.
#
#   bash scripts/with-keyring.sh npx vitest run            # the whole suite, keychain tests included
#   bash scripts/with-keyring.sh node bin/tidy.mjs key status
#
# Needs (Debian/Ubuntu): dbus (dbus-run-session, dbus-send) and gnome-keyring; libsecret-1-0 for keytar.
# Inside, TIDY_KEYRING_SESSION=1 tells the tests that a Secret Service is up and unlocked.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: bash scripts/with-keyring.sh COMMAND [ARGS...]" >&2
  exit 2
fi

if [[ "${1}" != "--inside-session" ]]; then
  for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "with-keyring: $tool is missing; install it: apt-get install -y dbus dbus-x11 gnome-keyring libsecret-1-0" >&2
      exit 1
    fi
  done
  # A fresh home for the keyring files and the control socket: the user's real keyring is never opened,
  # and nothing is left behind.
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/tidy-keyring.XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/data" "$scratch/runtime"
  chmod 700 "$scratch/runtime"
  status=0
  XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch/runtime" \
    dbus-run-session -- bash "${BASH_SOURCE[0]}" --inside-session "$@" || status=$?
  exit "$status"
fi
shift

# Creates the login keyring with this password and unlocks it, then daemonizes. The password only
# protects a scratch keyring that is deleted afterwards.
printf '%s' 'tidy-test-keyring' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1

# The daemon claims org.freedesktop.secrets on the bus shortly after it forks: wait for it (up to 5 s).
for _ in $(seq 50); do
  if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; then
    export TIDY_KEYRING_SESSION=1
    # dbus-run-session ends the bus when the command exits, and the daemon goes with it.
    exec "$@"
  fi
  sleep 0.1
done
echo "with-keyring: gnome-keyring-daemon did not register the Secret Service within 5 s" >&2
exit 1
