# Helpers for the benchmark scripts (source it after setting $work, $runs,
# $mnt and loop=""; it installs the EXIT trap that cleans them up).
#
# best CMD...            best wall time of $runs runs, in seconds
# rss CMD...             peak RSS of one run, in KiB
# measure CMD...         one run: "WALL USER+SYS PEAK_RSS" (seconds, KiB)
# keep_best NAME W C M   into the caller's associative arrays wall, cpu, mem:
#                        NAME's best wall and CPU time, highest peak RSS
# print_figures NAME...  those of each NAME, then the first's ratios to the others
# ratio A B              A / B, two decimals
# fill_files DIR N       N small files in 100 directories, every 10th one an
#                        8 KiB regular extent (the others inline)
# gen_tree DIR N         N files in directories of 2000 (DIR made), every
#                        10th 100 bytes, the others empty (for mkfs --rootdir)
# warm_tree DIR          read every file under DIR into the page cache
# cached_share DIR       "N%": how much of the files under DIR is in the page cache

best() {
	local b="" t i
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -o "$work/t" -f %e "$@" > /dev/null 2>&1; t=$(tail -n1 "$work/t")
		if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
	done
	echo "$b"
}

rss() {
	/usr/bin/time -o "$work/m" -f %M "$@" > /dev/null 2>&1; tail -n1 "$work/m"
}

measure() {
	/usr/bin/time -o "$work/m" -f "%e %U %S %M" "$@" > /dev/null 2>&1
	tail -n1 "$work/m" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }'
}

keep_best() {
	if [ -z "${wall[$1]:-}" ] || awk "BEGIN{exit !($2 < ${wall[$1]})}"; then wall[$1]=$2; fi
	if [ -z "${cpu[$1]:-}" ] || awk "BEGIN{exit !($3 < ${cpu[$1]})}"; then cpu[$1]=$3; fi
	if [ -z "${mem[$1]:-}" ] || [ "$4" -gt "${mem[$1]}" ]; then mem[$1]=$4; fi
}

ratio() { awk "BEGIN{if ($2 > 0) printf \"%.2f\", $1 / $2; else print \"n/a\"}"; }

print_figures() {
	local n
	for n in "$@"; do
		printf "%-9s wall %6ss, user+sys %6ss, peak RSS %8s KiB\n" "$n:" "${wall[$n]}" "${cpu[$n]}" "${mem[$n]}"
	done
	for n in "${@:2}"; do
		printf "ratio vs %-9s wall %s, user+sys %s, peak RSS %s\n" "$n:" "$(ratio "${wall[$1]}" "${wall[$n]}")" \
			"$(ratio "${cpu[$1]}" "${cpu[$n]}")" "$(ratio "${mem[$1]}" "${mem[$n]}")"
	done
}

gen_tree() {
	python3 - "$1" "$2" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
nd = max(1, n // 2000)
os.mkdir(root)
for d in range(nd):
    os.mkdir(os.path.join(root, 'd%04d' % d))
small = b'x' * 100
for i in range(n):
    fd = os.open(os.path.join(root, 'd%04d' % (i % nd), 'f%07d' % i), os.O_CREAT | os.O_WRONLY, 0o644)
    if i % 10 == 0:
        os.write(fd, small)
    os.close(fd)
PY
}

fill_files() {
	python3 - "$1" "$2" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for d in range(100):
    os.mkdir(os.path.join(root, 'd%02d' % d))
small, big = b'x' * 100, b'y' * 8192
for i in range(n):
    with open(os.path.join(root, 'd%02d' % (i % 100), 'f%06d' % i), 'wb') as f:
        f.write(big if i % 10 == 0 else small)
PY
}

# Through cat: GNU tar does not read the files when its output is /dev/null.
warm_tree() {
	find "$1" -type f -print0 | xargs -0 -r cat > /dev/null
}

cached_share() {
	find "$1" -type f -print0 | xargs -0 -r fincore -b -n -o RES,SIZE 2> /dev/null |
		awk '{ r += $1; s += $2 } END { printf "%d%%\n", s ? 100 * r / s : 0 }'
}

bench_cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$work"
}
trap bench_cleanup EXIT
