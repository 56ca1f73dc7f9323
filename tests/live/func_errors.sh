# func and probe on a kernel without kprobes or fentry (the host): one clear
# line, non-zero exit; probe --json says the same.  On a kernel with them
# (the VM), these run in tests/vm instead.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
"$IODIG" probe --json > "$T/p.json" || die "probe failed"
jq -e '.features.btf and .features.uprobes and .features.ringbuf' "$T/p.json" >/dev/null || die "probe: $(cat "$T/p.json")"
if jq -e '.features.kprobes or .features.fentry' "$T/p.json" >/dev/null; then
	skip_reason="this kernel has kprobes or fentry: func on kernel functions is tested in the VM"
	echo "  note: $skip_reason"
else
	"$IODIG" func vfs_read >/dev/null 2>"$T/err"; rc=$?
	assert_eq "$rc" 1 "func on a kernel function exits 1"
	grep -q "this kernel has neither kprobes (.*) nor fentry (.*)" "$T/err" || die "message: $(cat "$T/err")"
	assert_eq "$(wc -l < "$T/err")" 1 "one line"
	ok "$(cat "$T/err")"
	assert_eq "$(jq -r '.commands.func_kernel' "$T/p.json")" unavailable "probe --json: func on kernel functions"
	jq -e '.why_not.kprobes and .why_not.fentry' "$T/p.json" >/dev/null || die "probe --json lacks the reasons"
	ok "probe --json: kprobes: $(jq -r .why_not.kprobes "$T/p.json"); fentry: $(jq -r .why_not.fentry "$T/p.json")"
fi
"$IODIG" func nosuchfunction_iodig >/dev/null 2>"$T/err"; rc=$?
assert_eq "$rc" 1 "a function that does not exist"
grep -q "no such kernel function" "$T/err" || die "$(cat "$T/err")"
"$IODIG" func /nonexistent:foo >/dev/null 2>"$T/err"; assert_eq $? 1 "a binary that does not exist"
"$IODIG" func /bin/true:no_such_symbol_iodig >/dev/null 2>"$T/err"; assert_eq $? 1 "a symbol that does not exist"
ok "$(cat "$T/err")"
"$IODIG" func -p 12ab /bin/true:main >/dev/null 2>"$T/err"; assert_eq $? 2 "a pid that is no number"
"$IODIG" func -p 4000000 /bin/true:main >/dev/null 2>"$T/err"; assert_eq $? 1 "a pid that does not exist"
"$IODIG" func >/dev/null 2>&1; assert_eq $? 2 "no function"
jq -e '[.block_tracepoints[] | select(.name == "block_rq_complete")][0].args | startswith("struct request *")' \
	"$T/p.json" >/dev/null || die "block_rq_complete layout missing"
ok "probe lists block_rq_complete(struct request *, ...)"
# one line with the real reason, never libbpf's "Unknown error 4001"
one_line() {	# what pattern -- command...
	local what=$1 pat=$2
	shift 3
	"$@" >/dev/null 2>"$T/err"; rc=$?
	assert_eq "$rc" 1 "$what: exit status"
	assert_eq "$(wc -l < "$T/err")" 1 "$what: lines on stderr"
	grep -q -- "$pat" "$T/err" || die "$what: '$(cat "$T/err")' lacks '$pat'"
	ok "$what: $(cat "$T/err")"
}
one_line "a file that is no ELF" "/etc/passwd: not an ELF file" -- "$IODIG" func /etc/passwd:work
one_line "a directory" "/etc: not an ELF file" -- "$IODIG" func /etc:work
one_line "a library name found nowhere" "'nosuchlib_iodig': no such program in PATH, nor library" -- "$IODIG" func nosuchlib_iodig:foo
one_line "a library the process has not mapped" "'libnothere_iodig' is not mapped in process $$" -- "$IODIG" func -p $$ libnothere_iodig:x
