#!/usr/bin/env bash
# Runs a long step (an apt install, a first build) so that the screen never stays silent: at least
# every 30 s a line says what is running, for how long, and (for a build) how far along it is.
#   scripts/support/progress.sh [--log FILE] WHAT COMMAND [ARGS...]
# With --log, COMMAND's output goes to FILE only, and the lines name the last [step/steps] SwiftPM
# wrote there; on a terminal one line is rewritten in place every second instead. Without --log,
# COMMAND's output passes through and the lines say only how long it has run. Exits with
# COMMAND's status.
#   "# building portal-auth: 2 min 30 s so far, at [412/1059] Compiling PortalAuth Renewal.swift"
# PORTAL_AUTH_PROGRESS_INTERVAL: the seconds between lines (30). PORTAL_AUTH_PROGRESS_TICKS: a
# file (a FIFO) whose every line stands for the interval passing, instead of the clock: the
# tests drive the helper with it, without waiting out time.
set -uo pipefail

log=""
if [ "${1:-}" = --log ]; then
  log=$2
  shift 2
fi
[ $# -ge 2 ] || { echo "usage: scripts/support/progress.sh [--log FILE] WHAT COMMAND [ARGS...]" >&2; exit 2; }
what=$1
shift
interval=${PORTAL_AUTH_PROGRESS_INTERVAL:-30}
in_place=""
if [ -t 1 ] && [ -n "$log" ]; then
  in_place=1
  interval=1
fi

# One channel of events, in the order they happen: "tick" when an interval has passed, "end" when
# the command has ended. A FIFO opened for reading and writing here never reaches its end.
events_dir=$(mktemp -d "${TMPDIR:-/tmp}/portal-auth-progress.XXXXXX") || exit 1
mkfifo "$events_dir/events" && exec 3<>"$events_dir/events" || { rm -rf "$events_dir"; exit 1; }
ticker=""
reader=""
cleanup() {
  [ -n "$ticker" ] && kill "$ticker" 2>/dev/null
  [ -n "$reader" ] && kill "$reader" 2>/dev/null
  rm -rf "$events_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${PORTAL_AUTH_PROGRESS_TICKS:-}" ]; then
  { while IFS= read -r _; do echo tick; done <"$PORTAL_AUTH_PROGRESS_TICKS"; } >&3 &
else
  {
    trap 'kill $pause 2>/dev/null; exit 0' TERM
    while :; do
      sleep "$interval" &
      pause=$!
      wait "$pause"
      echo tick
    done
  } >&3 &
fi
ticker=$!

# "2 min 30 s" for a number of seconds.
duration() {
  if [ "$1" -ge 60 ]; then echo "$(($1 / 60)) min $(($1 % 60)) s"; else echo "$1 s"; fi
}

# The last "[step/steps] what" line of the log, at most 100 characters.
last_step() {
  [ -n "$log" ] || return 0
  tail -c 65536 "$log" 2>/dev/null | grep -a -E '^\[[0-9]+/[0-9]+\] ' | tail -n 1 | cut -c 1-100
}

# The reader prints a line for each tick until the command ends.
start=$SECONDS
{
  while IFS= read -r -u 3 event && [ "$event" = tick ]; do
    at=$(last_step)
    elapsed=$(duration $((SECONDS - start)))
    if [ -n "$in_place" ]; then
      printf '\r# %s%s, %s\033[K' "$what" "${at:+ ${at%% *}}" "$elapsed"
    else
      echo "# $what: $elapsed so far${at:+, at $at}"
    fi
  done
  [ -n "$in_place" ] && printf '\r\033[K'
} &
reader=$!

# The command in the foreground, so that Ctrl-C reaches it.
status=0
if [ -n "$log" ]; then
  : >"$log"
  "$@" >>"$log" 2>&1 3>&- || status=$?
else
  "$@" 3>&- || status=$?
fi
echo end >&3
wait "$reader"
reader=""
exit "$status"
