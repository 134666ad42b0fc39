# Helpers for the write engine tests (source after common.sh).
#
# fst_formats_ok DUMP [SECTORSIZE]   every block group of a free space tree dump
#     (dump-tree -t 10) is in the format the kernel's thresholds allow: extents
#     with at most HIGH free extents, bitmaps with at least LOW, where
#     HIGH = ceil(len / (sectorsize * 2048)) * (25 + 256) / 25 and
#     LOW = HIGH - 100 (0 when HIGH <= 100); prints "bg START count C flags F"
#     for each; fails naming the first group that is not.
# fst_count_bitmap_groups DUMP       how many block groups use bitmaps
# entries_seen N DIR WHAT            DIR (a kernel mount) lists exactly N entries, else
#     fails "WHAT: the kernel sees X entries in DIR, expected N"

fst_formats_ok() {
	local dump=$1 ss=${2:-4096}
	awk -v ss="$ss" '
		/FREE_SPACE_INFO/ { gsub(/[()]/, ""); start = $4; len = $6; next }
		/free space info extent count/ {
			count = $6; flags = $8
			range = ss * 2048
			high = int(int((len + range - 1) / range) * 281 / 25)
			low = high > 100 ? high - 100 : 0
			printf "bg %s count %d flags %d (high %d low %d)\n", start, count, flags, high, low
			if ((flags == 0 && count > high) || (flags == 1 && count < low)) {
				printf "block group %s: %d free extents in %s form (thresholds %d/%d)\n", \
					start, count, flags ? "bitmap" : "extent", high, low > "/dev/stderr"
				bad = 1
			}
		}
		END { exit bad }' "$dump" || _fail "free space tree format outside the kernel's thresholds ($dump)"
}

fst_count_bitmap_groups() {
	grep -c 'free space info extent count [0-9]* flags 1$' "$1"
}

entries_seen() {
	local n
	n=$(ls "$2" | wc -l)
	[ "$n" -eq "$1" ] || _fail "$3: the kernel sees $n entries in $2, expected $1"
}
