# What the guest scripts share (busybox sh): markers on the serial console
# that tests/vm/check.sh and tests/vm/stack read, and iodig started and
# stopped in the background.
I=/iodig/iodig
begin() { echo "=== BEGIN $1"; }
end() { echo "=== END $1"; }
put() { echo "--- $1"; cat "$2"; echo; }	# name file
kv() { echo "KV $1 $2"; }

# start NAME ARGS...: iodig in the background, back once it is attached
start() {
	n=$1; shift
	rm -f /tmp/$n.ready
	$I "$@" --ready-file /tmp/$n.ready > /tmp/$n.out 2> /tmp/$n.err &
	eval "pid_$n=$!"
	t=0
	while [ ! -s /tmp/$n.ready ] && [ $t -lt 1200 ]; do
		kill -0 $(eval echo \$pid_$n) 2>/dev/null || break
		t=$((t + 1)); sleep 0.1
	done
}
# stop NAME: SIGINT, then its exit status, output and stderr
stop() {
	p=$(eval echo \$pid_$1)
	kill -INT $p; wait $p; kv "$1.rc" $?
	put "$1.out" /tmp/$1.out
	put "$1.err" /tmp/$1.err
}
stat_of() { cat /sys/block/$1/stat; }	# reads at $1, writes at $5
dm_named() { for d in /sys/block/dm-*; do [ "$(cat $d/dm/name)" = "$1" ] && echo ${d##*/}; done; }
# snoop_rw NAME DISK N: snoop -d DISK over N writes then N reads of 4 KiB,
# the disk's stat before and after
snoop_rw() {
	start $1 snoop -d $2 --json
	kv before "$(stat_of $2)"
	dd if=/dev/zero of=/dev/$2 bs=4k count=$3 oflag=direct 2>/dev/null
	dd if=/dev/$2 of=/dev/null bs=4k count=$3 iflag=direct 2>/dev/null
	sleep 0.5
	kv after "$(stat_of $2)"
	stop $1
}
