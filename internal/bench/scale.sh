#!/usr/bin/env bash
# scale.sh: one match of N players over real UDP on this machine (issue 25,
# "Many players in one match"; BENCHMARKS.md "Scale"), or with MATCHES=M,
# M matches of N players each in one process ("Many matches per process";
# MATCHES=1 is serve's one default match, reported as a match;
# BENCHMARKS.md "Scale: matches per process"). It builds snapwire,
# starts `snapwire serve --game crowd` (secure: a fresh key file) with N
# slots (in each of M matches: serve --matches M), runs `snapwire load
# --game crowd --clients N×M` (--matches M: client i joins match 1 + i mod
# M) against it for DURATION, and prints one line: the load generator's
# summary (connected, snapshot rate per client p5/p50/min, loss, bytes in
# per client; with MATCHES the number of matches and the worst match's
# p5 and min) with the server's CPU (core-seconds per second over the
# run, and per player, from utime+stime in /proc/PID/stat), its RSS
# (VmRSS, /proc/PID/status, at the end), the generator's own CPU
# (/usr/bin/time) and the load averages when the run started and ended
# (/proc/loadavg: other work on the machine). Server and generator share the machine's
# cores.
#
# Usage (from the repository root): internal/bench/scale.sh N [DURATION]
# e.g. internal/bench/scale.sh 512 5m, MATCHES=128 internal/bench/scale.sh 8 2m;
# CMD_RATE=30 sets the light clients'
# command messages per second (load --cmd-rate, default 60), RAMP the
# interval between two clients' connects (load --ramp, default 2ms), PORT
# the port; with MATCHES the server logs its summary status line every
# STATUS (default 1s; the run waits for the first, when its matches
# exist); KEEP=1 keeps the server's log and the load summary (the path
# is on stderr).
set -euo pipefail
n=${1:?usage: [MATCHES=M] scale.sh N [DURATION]}
dur=${2:-60s}
port=${PORT:-27990}
matches=${MATCHES:-0}
players=$n
match_flags=()
status=0
if [ "$matches" -gt 0 ]; then
	players=$((n * matches))
	match_flags=(--matches "$matches")
	status=${STATUS:-1s}
fi
dir=$(mktemp -d)
[ -z "${KEEP:-}" ] || echo "scale.sh: logs in $dir" >&2
trap 'kill "$srv" 2>/dev/null || true; [ -z "${KEEP:-}" ] && rm -rf "$dir"; true' EXIT
go build -o "$dir/snapwire" ./cmd/snapwire
"$dir/snapwire" token keygen >"$dir/key"
"$dir/snapwire" serve --game crowd "${match_flags[@]}" --max-clients "$n" --key-file "$dir/key" \
	--listen "127.0.0.1:$port" --status "$status" >"$dir/serve.log" 2>&1 &
srv=$!
sleep 1
# With --matches the matches are created once the socket listens: the
# first status line, which sums them, says they are all there.
for _ in $(seq 100); do
	[ "$matches" -eq 0 ] || grep -q 'msg=status matches=' "$dir/serve.log" && break
	sleep 0.1
done
hz=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$srv/stat"; }
la0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s.%N)
c0=$(cpu)
/usr/bin/time -f '%U %S' -o "$dir/loadtime" "$dir/snapwire" load --game crowd --clients "$players" "${match_flags[@]}" \
	--key-file "$dir/key" --connect "127.0.0.1:$port" --duration "$dur" --cmd-rate "${CMD_RATE:-60}" --ramp "${RAMP:-2ms}" --json >"$dir/load.json" || true
c1=$(cpu)
t1=$(date +%s.%N)
rss=$(awk '/VmRSS/{print $2}' "/proc/$srv/status")
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
jq -c --argjson n "$players" --argjson m "$matches" --arg la0 "$la0" --arg loadavg "$loadavg" --argjson hz "$hz" --argjson c0 "$c0" --argjson c1 "$c1" \
	--argjson t0 "$t0" --argjson t1 "$t1" --argjson rss "$rss" --arg lt "$(cat "$dir/loadtime")" '
	(($c1 - $c0) / $hz / ($t1 - $t0)) as $core |
	{players: $n} + (if $m > 0 then {matches: $m, worst_match: .worst_match.match,
	  worst_match_p5: .worst_match.snapshot_rate_p5, worst_match_min: .worst_match.snapshot_rate_min} else {} end) + {connected, failed, first_error, duration_s, snapshot_rate_p5, snapshot_rate_p50, snapshot_rate_min,
	 loss, bytes_in_per_client_per_s, base_mismatches, decode_errors,
	 server_cores: ($core * 1000 | round / 1000),
	 server_core_ms_per_player_s: ($core / $n * 1e6 | round / 1000),
	 server_rss_mib: ($rss / 1024 | round),
	 load_cores: (($lt | split(" ") | map(tonumber) | add) / ($t1 - $t0) * 1000 | round / 1000),
	 loadavg_start: $la0, loadavg_end: $loadavg}' "$dir/load.json"
