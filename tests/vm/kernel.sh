# vm_kernel: the directory of the newest Debian 6.1 cloud kernel in apt's
# lists, downloaded once into $VM (build/vm) and unpacked; or a message.
vm_kernel() {
	local pkg
	pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' | cut -d' ' -f1 | sort -V | tail -1)
	[ -n "$pkg" ] || { apt-get update -qq >/dev/null 2>&1; pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' | cut -d' ' -f1 | sort -V | tail -1); }
	[ -n "$pkg" ] || { echo "no linux-image-6.1.0-*-cloud-amd64-unsigned in apt's lists"; return 1; }
	if [ ! -d "$VM/$pkg" ]; then
		( cd "$VM" && rm -f ./*.deb && apt-get download "$pkg" >/dev/null 2>&1 ) || { echo "apt-get download $pkg"; return 1; }
		dpkg-deb -x "$VM"/"$pkg"_*.deb "$VM/$pkg" || { echo "dpkg-deb -x"; return 1; }
		rm -f "$VM"/*.deb
	fi
	echo "$VM/$pkg"
}
