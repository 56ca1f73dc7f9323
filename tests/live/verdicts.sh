# The test library itself: a skip or a failure ends the test whatever shell
# construct called it ($(...), a pipeline, a background job, a subshell),
# and under CI=true a skip is a failure.  Each case is a small script that
# sources tests/lib.sh, calls the helper the way the live tests do, and then
# tries to pass; its exit status must be the verdict.
. "$(dirname "$0")/../lib.sh"

case_rc() {	# CI_VALUE BODY -> prints the script's exit status
	printf '. %s/tests/lib.sh\n%s\necho reached-the-end; exit 0\n' "$TOP" "$2" > "$T/case.sh"
	CI=$1 bash "$T/case.sh" > "$T/case.out" 2>&1
	echo $?
}

for how in 'X=$(skip "no such thing")' 'skip "no such thing" | cat' '( skip "no such thing" )' \
	   '{ skip "no such thing"; } & wait' 'X=$(echo a; skip "no such thing"; echo b)'; do
	assert_eq "$(case_rc true "$how")" 1 "CI=true: $how"
	grep -q reached-the-end "$T/case.out" && die "CI=true: $how: the test went on after the skip"
	assert_eq "$(case_rc false "$how")" 77 "outside CI: $how"
done
for how in 'X=$(die "broken")' 'die broken | cat' '( die broken )' '{ die broken; } & wait' 'die broken'; do
	assert_eq "$(case_rc false "$how")" 1 "a failure: $how"
	grep -q 'FAIL: broken' "$T/case.out" || die "$how: the failure's message was not shown"
done
# a background job that fails while the test waits on something else: the
# test ends when that command returns (bash runs a trap between commands)
assert_eq "$(case_rc false '{ sleep 0.1; die late; } & sleep 1; echo after-the-sleep')" 1 "a background job's failure"
grep -q after-the-sleep "$T/case.out" && die "the test went on after its background job failed"
ok "the test ended before its next command"
assert_eq "$(case_rc true 'X=$(echo fine)')" 0 "a test without a verdict passes"
