#!/usr/bin/env bash
# Counts the machine instructions the server spends per client-snapshot with 256 visible
# entities (the FrameCache's Prepare share, Build and Ack of every client; no channel), per
# scenario, with valgrind's callgrind: a figure that, unlike the times in BENCHMARKS.md, does not
# move with the load of a shared machine. Run from the repository root:
#
#	internal/bench/callgrind.sh [scenario...]   (default: every scenario)
#
# The garbage collector is off and preemption too, so the counts are the code's own
# (BenchmarkAll256 allocates nothing in steady state); the count per client-snapshot is the
# instructions of the benchmark's frames divided by its Encoder.Build calls.
set -euo pipefail
command -v valgrind >/dev/null || { echo "valgrind is not installed (Debian: apt-get install valgrind)" >&2; exit 1; }
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(duel 16p 64p churn static)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" ./internal/bench
printf '| scenario | instructions per client-snapshot |\n|---|---:|\n'
for sc in "${scenarios[@]}"; do
	# cpu.rdtscp=off: valgrind does not know RDTSCP, which the Go runtime would execute when a
	# runtime lock is contended (runtime.cputicks), killing the run with SIGILL.
	if ! (cd "$tmp" && GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
		--toggle-collect='*benchDoom3All.func1' --callgrind-out-file="$tmp/cg.$sc" \
		./bench.test -test.run '^$' -test.bench "^BenchmarkAll256/$sc\$" -test.benchtime 20x >"$tmp/log.$sc" 2>&1); then
		echo "$sc: the benchmark failed under valgrind:" >&2
		grep -v '^==' "$tmp/log.$sc" >"$tmp/err.$sc" || true
		head -20 "$tmp/err.$sc" >&2
		exit 1
	fi
	callgrind_annotate --tree=calling --inclusive=yes "$tmp/cg.$sc" >"$tmp/cg.$sc.txt" 2>/dev/null
	total=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}' "$tmp/cg.$sc.txt")
	builds=$(grep -m1 -o 'snapshot.(\*Encoder).Build ([0-9,]*x)' "$tmp/cg.$sc.txt" | grep -m1 -o '[0-9,]*x' | tr -d ',x')
	if [ -z "$total" ] || [ -z "$builds" ] || [ "$builds" -eq 0 ]; then
		echo "$sc: no count (callgrind output unreadable)" >&2
		exit 1
	fi
	printf '| %s | %d |\n' "$sc" $((total / builds))
done
