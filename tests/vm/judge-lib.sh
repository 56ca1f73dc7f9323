# What the judges share: the sections and files a guest printed on the
# serial console (guest-lib.sh), read from the log named in $1, and checks
# counted.  Sourced by tests/vm/check.sh and tests/vm/stack.
# the serial console ends lines with \r\n
LOG=$(mktemp)
tr -d '\r' < "$1" > "$LOG"
trap 'rm -f "$LOG"' EXIT
pass=0; failed=0; failures=""
section() { awk -v s="$1" '$0 == "=== BEGIN " s {on = 1; next} $0 == "=== END " s {on = 0} on' "$LOG"; }
file() { section "$1" | awk -v f="--- $2" '$0 == f {on = 1; next} /^--- / || /^KV / {on = 0} on'; }
kv() { section "$1" | awk -v k="KV $2" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }'; }
ok() { echo "  ok: $*"; pass=$((pass + 1)); }
bad() { echo "  FAIL: $*"; failed=$((failed + 1)); failures="$failures
  failed: ${1:0:160}"; }
# the count, then the failed checks again: a log cut to its end still names them
summary() { echo; echo "$1 checks: $pass passed, $failed failed$failures"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
count() { file "$1" "$2" | jq -s "[.[] | select(.type == \"hist\" $3) | .count] | add // 0"; }
