#!/bin/sh
# Starts `v4cert serve` in the background, waits for GET /-/readiness and
# exports its URL and administrator token. Used by the GitHub Action
# (ci/serve/action.yml); runnable as it is on any POSIX shell.
#
# In:  V4CERT_BIN (default v4cert), V4CERT_ADDR (default 127.0.0.1:8080),
#      V4CERT_ROOT_TOKEN (default: a random one), V4CERT_SEED_FILE,
#      V4CERT_SEED (default demo), V4CERT_DATA_DIR, V4CERT_WAIT (seconds, default 60),
#      V4CERT_LOG_FILE (default v4cert-serve.log)
# Out: V4CERT_URL and V4CERT_TOKEN in $GITHUB_ENV and $GITHUB_OUTPUT when set,
#      and as shell lines on stdout; the server's pid in v4cert-serve.pid.
set -eu
bin=${V4CERT_BIN:-v4cert}
addr=${V4CERT_ADDR:-127.0.0.1:8080}
log=${V4CERT_LOG_FILE:-v4cert-serve.log}
wait_s=${V4CERT_WAIT:-60}
if [ -z "${V4CERT_ROOT_TOKEN:-}" ]; then
	V4CERT_ROOT_TOKEN=v4cert-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
fi
export V4CERT_ROOT_TOKEN
# GitHub Actions prints a masked value as ***, in every later step too.
if [ "${GITHUB_ACTIONS:-}" = true ]; then
	echo "::add-mask::$V4CERT_ROOT_TOKEN"
fi
set -- serve --addr "$addr"
if [ -n "${V4CERT_SEED_FILE:-}" ]; then
	set -- "$@" --seed-file "$V4CERT_SEED_FILE"
else
	set -- "$@" --seed "${V4CERT_SEED:-demo}"
fi
if [ -n "${V4CERT_DATA_DIR:-}" ]; then
	set -- "$@" --data-dir "$V4CERT_DATA_DIR"
fi
# The seed and address are given as flags: the variables of the same name
# must not be read a second time by serve.
env -u V4CERT_SEED -u V4CERT_SEED_FILE -u V4CERT_ADDR -u V4CERT_DATA_DIR "$bin" "$@" >"$log" 2>&1 &
pid=$!
echo "$pid" >v4cert-serve.pid
url="http://$addr"
case $addr in 0.0.0.0:*) url="http://127.0.0.1:${addr#0.0.0.0:}" ;; esac
ready() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsS -o /dev/null "$url/-/readiness"
	else
		wget -q -O /dev/null "$url/-/readiness"
	fi
}
i=0
until ready 2>/dev/null; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "v4cert serve exited before it was ready:" >&2
		cat "$log" >&2
		exit 1
	fi
	i=$((i + 1))
	if [ "$i" -gt $((wait_s * 5)) ]; then
		echo "v4cert serve was not ready after ${wait_s}s:" >&2
		cat "$log" >&2
		kill "$pid" 2>/dev/null || true
		exit 1
	fi
	sleep 0.2
done
for f in ${GITHUB_ENV:-} ${GITHUB_OUTPUT:-}; do
	printf 'V4CERT_URL=%s\nV4CERT_TOKEN=%s\n' "$url" "$V4CERT_ROOT_TOKEN" >>"$f"
done
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	printf 'url=%s\ntoken=%s\npid=%s\n' "$url" "$V4CERT_ROOT_TOKEN" "$pid" >>"$GITHUB_OUTPUT"
fi
echo "V4CERT_URL=$url"
echo "V4CERT_TOKEN=$V4CERT_ROOT_TOKEN"
