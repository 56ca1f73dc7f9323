# Shared by the bench scripts: root, tracefs, and a 256 MiB loop device on a
# /dev/shm file, zero-filled, as $dev (name $n), removed at exit.
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
img=$(mktemp /dev/shm/iodig-bench.XXXXXX)
truncate -s 256M "$img"
dev=$(losetup -f --show "$img")
trap 'losetup -d $dev; rm -f $img' EXIT
dd if=/dev/zero of="$dev" bs=1M count=256 oflag=direct status=none
n=${dev#/dev/}
echo "kernel $(uname -r), $(nproc) CPUs, device $n on /dev/shm; $(date -u +%F)"
echo
