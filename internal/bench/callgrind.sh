#!/usr/bin/env bash
# Counts the machine instructions the server spends per client-snapshot with 256 visible
# entities (the FrameCache's Prepare share, Build and Ack of every client; then the same with
# the channel's Send of every snapshot, zrle or Huffman), per scenario, with valgrind's
# callgrind: a figure that, unlike the times in BENCHMARKS.md, does not move with the load of a
# shared machine. Run from the repository root:
#
#	internal/bench/callgrind.sh [scenario...]   (default: every scenario)
#
# The garbage collector is off and preemption too, so the counts are the code's own
# (BenchmarkAll256 and BenchmarkAllSend256 allocate nothing in steady state); the count per
# client-snapshot is the instructions of the benchmark's frames divided by its Encoder.Build calls.
set -euo pipefail
command -v valgrind >/dev/null || { echo "valgrind is not installed (Debian: apt-get install valgrind)" >&2; exit 1; }
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(duel 16p 64p churn static)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" ./internal/bench
printf '| scenario | instructions per client-snapshot: Prepare share, Build, Ack | and the channel'"'"'s Send |\n|---|---:|---:|\n'
# count BENCH SCENARIO: the instructions of the benchmark's frames over its Encoder.Build calls.
count() {
	local bench=$1 sc=$2 out="$tmp/cg.$1.$2"
	# cpu.rdtscp=off: valgrind does not know RDTSCP, which the Go runtime would execute when a
	# runtime lock is contended (runtime.cputicks), killing the run with SIGILL.
	if ! (cd "$tmp" && GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
		--toggle-collect='*benchDoom3All.func1' --callgrind-out-file="$out" \
		./bench.test -test.run '^$' -test.bench "^$bench/$sc\$" -test.benchtime 20x >"$out.log" 2>&1); then
		echo "$sc: $bench failed under valgrind:" >&2
		grep -v '^==' "$out.log" >"$out.err" || true
		head -20 "$out.err" >&2
		exit 1
	fi
	callgrind_annotate --tree=calling --inclusive=yes "$out" >"$out.txt" 2>/dev/null
	local total builds
	total=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}' "$out.txt")
	# The most calls on one line: the frame's (a stack growth can add a line of one call).
	builds=$(grep -o 'snapshot.(\*Encoder).Build ([0-9,]*x)' "$out.txt" | grep -o '[0-9,]*x' | tr -d ',x' | sort -n | tail -1)
	if [ -z "$total" ] || [ -z "$builds" ] || [ "$builds" -eq 0 ]; then
		echo "$sc: no count (callgrind output unreadable)" >&2
		exit 1
	fi
	echo $((total / builds))
}
for sc in "${scenarios[@]}"; do
	layer=$(count BenchmarkAll256 "$sc")
	sent=$(count BenchmarkAllSend256 "$sc")
	printf '| %s | %d | %d |\n' "$sc" "$layer" "$sent"
done
