#!/bin/bash
# tests/fuzz-recordings.sh [MINUTES]: the recording readers under ASan and
# UBSan (make asan) against random damage for MINUTES (default 10), outside
# CI: each round takes a recording of tests/data/recordings, cuts it,
# flips bits, rewrites frame sizes or repeats a frame, and reads it with
# replay (text, JSON, --perfetto) and report.  A reader that exits other
# than 0 or 1 (a sanitizer's 99, a signal) is a crasher: kept in
# tests/data/crashers/, which tests/sanitizers.sh then reads every run.
set -u
cd "$(dirname "$0")/.."
B=build-asan/iodig-asan
[ -x "$B" ] || { echo "make asan first"; exit 2; }
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1
T=$(mktemp -d /tmp/iodig-fuzz.XXXXXX)
trap 'rm -rf "$T"' EXIT
end=$(( $(date +%s) + ${1:-10} * 60 ))
rounds=0; crashers=0
mkdir -p tests/data/crashers
while [ "$(date +%s)" -lt "$end" ]; do
	python3 - tests/data/recordings/*.rec "$T/f.rec" <<'PY'
import random, struct, sys
srcs, out = sys.argv[1:-1], sys.argv[-1]
rnd = random.Random()
b = bytearray(open(rnd.choice(srcs), "rb").read())
for _ in range(rnd.randrange(1, 4)):
    m = rnd.randrange(4)
    if m == 0 and len(b) > 1:
        del b[rnd.randrange(1, len(b)):]
    elif m == 1:
        for _ in range(rnd.randrange(1, 20)):
            i = rnd.randrange(len(b)); b[i] ^= 1 << rnd.randrange(8)
    elif m == 2 and len(b) > 20:
        i = rnd.randrange(12, len(b) - 4)
        struct.pack_into("<I", b, i, rnd.choice([0, 1, 0xffffffff, 0x7fffffff, 1 << 20, rnd.randrange(1 << 32)]))
    elif len(b) > 40:
        i = rnd.randrange(12, len(b) - 20); k = rnd.randrange(1, 200)
        b[i:i] = b[i:i + k]
open(out, "wb").write(bytes(b))
PY
	for cmd in "replay" "replay --json" "replay --perfetto $T/p.json" "report -o $T/r.html"; do
		# shellcheck disable=SC2086
		"$B" $cmd "$T/f.rec" > "$T/out" 2>&1; rc=$?
		if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
			crashers=$((crashers + 1))
			cp "$T/f.rec" "tests/data/crashers/crash-$(date +%s)-$crashers.rec"
			echo "crasher ($cmd: exit $rc): $(grep -m3 -E 'ERROR|runtime error' "$T/out")"
		fi
	done
	rounds=$((rounds + 1))
done
echo "$rounds rounds of damage, $crashers crashers"
[ "$crashers" = 0 ]
