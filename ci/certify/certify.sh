#!/bin/sh
# Runs `v4cert certify`, keeps its exit status, and writes the Markdown
# report into the job summary. Used by the GitHub Action
# (ci/certify/action.yml); runnable as it is on any POSIX shell.
#
# In:  V4CERT_BIN (default v4cert), V4CERT_TARGET, V4CERT_TOKEN (read by
#      certify itself), V4CERT_OUT (default v4cert-certify), V4CERT_PROFILE
#      (default spec), V4CERT_LABEL_FILTER, V4CERT_ARGS (more flags, split on spaces)
# Out: the reports in $V4CERT_OUT; summary.md appended to $GITHUB_STEP_SUMMARY
#      when set; exit-code and verdict in $GITHUB_OUTPUT when set. Exits with
#      certify's status: 0 CONFORMANT, 1 NOT CONFORMANT, 2 not started,
#      3 NOT RUN, 4 INCOMPLETE.
set -u
bin=${V4CERT_BIN:-v4cert}
out=${V4CERT_OUT:-v4cert-certify}
: "${V4CERT_TARGET:?V4CERT_TARGET: the base URL of the implementation to certify}"
: "${V4CERT_TOKEN:?V4CERT_TOKEN: an administrator token of the target}"
set -- certify --out "$out" --profile "${V4CERT_PROFILE:-spec}"
if [ -n "${V4CERT_LABEL_FILTER:-}" ]; then
	set -- "$@" --label-filter "$V4CERT_LABEL_FILTER"
fi
# shellcheck disable=SC2086 # extra flags are words on purpose
"$bin" "$@" ${V4CERT_ARGS:-}
status=$?
verdict=$(sed -n 's/.*"verdict": *"\([^"]*\)".*/\1/p' "$out/report.json" 2>/dev/null | head -n 1)
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	if [ -f "$out/summary.md" ]; then
		cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
	else
		printf 'v4cert certify exited %s and wrote no report\n' "$status" >>"$GITHUB_STEP_SUMMARY"
	fi
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	printf 'exit-code=%s\nverdict=%s\nreports=%s\n' "$status" "$verdict" "$out" >>"$GITHUB_OUTPUT"
fi
exit "$status"
