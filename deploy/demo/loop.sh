#!/bin/sh
# The demo service's entrypoint: run `errscope demo` forever so the dashboards always have fresh traffic.
# Each successful run touches a heartbeat file that the compose healthcheck reads. Three rounds per run:
# every run is a new process whose series start fresh, and one round leaves rate() too few points.
set -u
interval="${ERRSCOPE_DEMO_INTERVAL:-15}"
trap 'exit 0' TERM INT
while :; do
  if errscope demo --rounds 3; then
    touch /tmp/errscope-demo.ok
  else
    echo "errscope demo failed (exit $?); next run in ${interval}s" >&2
  fi
  sleep "$interval" &
  wait $!
done
