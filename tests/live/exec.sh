# iodig exec against execs whose answer is known (tests/helpers/execload.py
# writes the pid, arguments and errno of each): every one reported once with
# its pid, parent, uid, return value and arguments; filters; text safe for a
# terminal.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
start_iodig "$T/all.json" exec --json
start_iodig "$T/all.txt" exec
start_iodig "$T/nobody.json" exec --json -u 65534
start_iodig "$T/failed.json" exec --json --failed
start_iodig "$T/name.json" exec --json --name echo --max-args 40
/usr/bin/python3 "$TOP/tests/helpers/execload.py" "$T/load.json" || die "execload.py"
sleep 0.3
stop_all_iodig
L="$T/load.json"
PP=$(jq .ppid "$L")
# mine FILE: the exec records of execload's children
mine() { jq -c "select(.type == \"exec\" and .ppid == $PP)" "$1"; }

got=$(mine "$T/all.json" | jq -s -c '[.[] | select(.comm == "true" and .ret == 0 and .args == ["true"])] | map(.pid) | sort')
[ "$got" = "$(jq -c '.trues | sort' "$L")" ] || die "the 50 /bin/true execs: got pids $got, want $(jq -c '.trues | sort' "$L")"
ok "the 50 /bin/true execs, each once with its pid"
n=$(jq '.other | length' "$L")
for i in $(seq 0 $((n - 1))); do
	want=$(jq -c ".other[$i]" "$L")
	pid=$(jq .pid <<<"$want"); st=$(jq .status <<<"$want")
	if [ "$st" -ge 100 ]; then	# the child's errno, by name
		err=$(python3 -c "import errno; print(errno.errorcode[$st - 100])")
		ret=$((100 - st))
	else
		err=null; ret=0
	fi
	got=$(mine "$T/all.json" | jq -c "select(.pid == $pid) | [.ret, .error, .uid, .path, .args, .truncated]")
	exp=$(jq -c --argjson ret "$ret" --arg err "$err" '[$ret, (if $err == "null" then null else $err end), .uid, .path,
		(if (.args | length) > 20 then .args[:20] else .args end), ((.args | length) > 20)]' <<<"$want")
	assert_eq "$got" "$exp" "exec $i ($(jq -r .path <<<"$want")): ret, error, uid, path, args, truncated"
done
assert_eq "$(jq -s -r '[.[] | select(.type == "exec") | .uid] | unique | map(tostring) | join(",")' "$T/nobody.json")" 65534 "-u 65534: only that user's execs"
assert_eq "$(mine "$T/nobody.json" | jq -c .args)" '["true","as-nobody"]' "-u 65534: execload's one"
assert_eq "$(jq -s '[.[] | select(.type == "exec" and .ret >= 0)] | length' "$T/failed.json")" 0 "--failed: no successful exec"
assert_eq "$(mine "$T/failed.json" | jq -s -c 'map(.path) | sort')" '["/etc/hostname","/nonexistent/iodig"]' "--failed: execload's two failures"
assert_eq "$(mine "$T/name.json" | jq -c "[(.args | length), .truncated]")" "[31,false]" "--name echo --max-args 40: all 31 arguments"
assert_eq "$(jq -s '[.[] | select(.type == "exec")] | length' "$T/all.json")" "$(jq -s '.[-1].shown' "$T/all.json")" "records = the summary's shown"
# (no_entry counts execs already under way when tracing began: the machine's, not ours)
assert_eq "$(jq -s '.[-1].lost' "$T/all.json")" 0 "records lost"
# text: one line per exec, the escape shown as \x1b, the newline as \x0a
LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f-\xff]' "$T/all.txt" && die "text output has raw control bytes: $(cat -v "$T/all.txt" | head)"
grep -qF 'true \x1b[31mred\x0a' "$T/all.txt" || die "text: the hostile argument not shown escaped: $(grep true "$T/all.txt" | tail -3)"
grep -E " $PP +0 .*echo 1 2 3 .* 19 \.\.\.$" "$T/all.txt" >/dev/null || die "text: echo's 30 arguments not cut at 20 with ...: $(grep echo "$T/all.txt")"
ok "text: escaped, and cut arguments marked"
# errors: a bad uid, no such cgroup
"$IODIG" exec -u nobody 2>"$T/e1"; assert_eq "$?" 2 "-u nobody: usage error"
"$IODIG" exec -c /sys/fs/cgroup/no-such-iodig 2>"$T/e2"; rc=$?
[ "$rc" = 1 ] && grep -q "no-such-iodig" "$T/e2" || die "-c missing cgroup: rc $rc, $(cat "$T/e2")"
ok "-c with a missing cgroup: one line naming it, exit 1"
