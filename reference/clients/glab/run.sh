#!/usr/bin/env bash
# glab, the platform's CLI, unchanged, against `v4cert serve` (issue 18).
#
# glab's Go module is not served by the Go module proxy this project uses,
# so it comes from a source checkout (GLAB_SRC: gitlab-org/cli, or its
# predecessor profclems/glab, whose dependencies the proxy does serve) built
# here with `go build`, or from a glab already on PATH. With neither, this
# says so and fails.
#
# The script starts the reference (V4CERT_BIN, else bin/v4cert) with root
# alone, sets up a project through `glab api` (README, CI file, an issue, a
# merge request, a pipeline whose job a runner finishes over the runner API),
# then runs glab's repository, issue, merge request and CI commands and
# checks what they print.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/v4cert-glab.XXXXXX")
server_pid=
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

glab=
if [ -n "${GLAB_SRC:-}" ]; then
	[ -f "$GLAB_SRC/cmd/glab/main.go" ] || { echo "clients-glab: GLAB_SRC=$GLAB_SRC holds no cmd/glab (a checkout of gitlab-org/cli or profclems/glab)"; exit 1; }
	echo "clients-glab: building glab from $GLAB_SRC"
	(cd "$GLAB_SRC" && go build -o "$work/glab" ./cmd/glab) || { echo "clients-glab: glab from $GLAB_SRC does not build here (its modules must come from the module proxy)"; exit 1; }
	glab=$work/glab
elif command -v glab >/dev/null; then
	glab=$(command -v glab)
else
	echo "clients-glab: NOT RUN, no glab: give a source checkout as GLAB_SRC=<dir of gitlab-org/cli> (its module is not on the Go module proxy) or put glab on PATH"
	exit 1
fi
echo "clients-glab: $("$glab" version 2>&1 | head -1) ($glab)"

bin=${V4CERT_BIN:-$root/bin/v4cert}
token=glpat-glab-client-root
"$bin" serve --addr 127.0.0.1:0 --seed none --root-token "$token" >"$work/serve.log" 2>&1 &
server_pid=$!
base=
for _ in $(seq 100); do
	base=$(sed -n 's/.*listening on \(http:\/\/[^ ]*\).*/\1/p' "$work/serve.log" | head -1)
	[ -n "$base" ] && break
	sleep 0.1
done
[ -n "$base" ] || { echo "clients-glab: v4cert serve did not start"; cat "$work/serve.log"; exit 1; }

# glab reads its hosts from a config file: the reference as host ref.test,
# its API over plain HTTP at the loopback address.
export HOME=$work GLAB_CONFIG_DIR=$work/config GITLAB_HOST=ref.test NO_COLOR=1 GLAB_NO_PROMPT=1 GLAB_CHECK_UPDATE=false
mkdir -p "$GLAB_CONFIG_DIR"
cat >"$GLAB_CONFIG_DIR/config.yml" <<YAML
check_update: false
hosts:
    ref.test:
        api_protocol: http
        api_host: ${base#http://}
        token: $token
        git_protocol: https
YAML
chmod 600 "$GLAB_CONFIG_DIR/config.yml"

field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" | head -1; }
api() { "$glab" api "$@"; }
start=$(date +%s.%N)

api --method POST projects -f name=demo -f initialize_with_readme=true >/dev/null
api --method POST projects/root%2Fdemo/repository/files/.gitlab-ci.yml -f branch=main -f commit_message=CI \
	-f 'content=test:
  script: ["true"]
' >/dev/null
api --method POST projects/root%2Fdemo/issues -f title='It broke' -f description='Steps to see it' >/dev/null
api --method POST projects/root%2Fdemo/repository/branches -f branch=topic -f ref=main >/dev/null
api --method POST projects/root%2Fdemo/repository/files/topic.txt -f branch=topic -f commit_message='Topic file' -f content=topic >/dev/null
api --method POST projects/root%2Fdemo/merge_requests -f source_branch=topic -f target_branch=main -f title='Add topic' >/dev/null
pipeline=$(api --method POST projects/root%2Fdemo/pipeline -f ref=main | field id)
runner=$(api --method POST user/runners -f runner_type=project_type -f project_id=1 -f description=glab | field token)
job=$(api --method POST jobs/request -f token="$runner" -f system_id=glab)
api --method PUT "jobs/$(echo "$job" | field id)" -f token="$(echo "$job" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p' | head -1)" \
	-f state=success -f trace='ok' >/dev/null

fails=0 passes=0
check() { # name, expected (extended regexp, case-insensitive), command...
	local name=$1 want=$2
	shift 2
	local out
	if out=$("$@" 2>&1) && grep -qiE -- "$want" <<<"$out"; then
		passes=$((passes + 1))
		echo "ok   $name"
	else
		fails=$((fails + 1))
		echo "FAIL $name: want /$want/ in:"
		sed 's/^/     /' <<<"$out"
	fi
}
R=(-R ref.test/root/demo)
check "repo view (README)" '# demo' "$glab" repo view ref.test/root/demo
check "issue view" 'title:[[:space:]]+It broke' "$glab" issue view 1 "${R[@]}"
check "mr list" '!1[[:space:]]+Add topic' "$glab" mr list "${R[@]}"
check "mr view" 'title:[[:space:]]+Add topic' "$glab" mr view 1 "${R[@]}"
check "ci list" "\(success\).*#$pipeline" "$glab" ci list "${R[@]}"
check "ci status" 'pipeline state: success' "$glab" ci status "${R[@]}" -b main
if "$glab" ci get --help >/dev/null 2>&1; then
	check "ci get" "id:[[:space:]]+$pipeline|\"id\": *$pipeline" "$glab" ci get "${R[@]}" -b main
else
	echo "skip ci get: this glab has no ci get (profclems/glab predates it; gitlab-org/cli has it)"
fi
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')
echo "clients-glab: $passes passed, $fails failed ($(printf '%.1f' "$elapsed") s against the reference)"
[ "$fails" = 0 ]
