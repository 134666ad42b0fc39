#!/bin/bash
# check --check-data-csum on the same content under a plain checksum and its
# keyed form, measured interleaved in one run: sha256 vs auth-sha256, blake2
# vs auth-blake2b, and the authsum types against the same peers.  DATA_MB MiB of random data in 16 MiB
# files, filled by our mkfs --rootdir (no root, no loop device).  Prints per
# type the best wall time of RUNS, user+sys CPU and peak RSS of one more run,
# and each keyed type's ratio to its plain peer (goal, issue 20: wall <= 1.1x).
#
# usage: bench/auth-bench.sh [DATA_MB] [RUNS]     (needs keyctl)
set -u
if [ -z "${IN_KEY_SESSION:-}" ]; then
	command -v keyctl > /dev/null || { echo "skipped: keyctl not installed"; exit 0; }
	IN_KEY_SESSION=1 exec keyctl session - bash "$0" "$@" 2> /dev/null
fi
top=$(cd "$(dirname "$0")/.." && pwd)
data_mb=${1:-512}; runs=${2:-3}
ours=${BTRFS:-$top/btrfs}
work=$(mktemp -d "${WORKDIR:-/tmp}/authbench.XXXXXX")
loop=""; mnt=$work/mnt
. "$top/bench/bench-lib.sh"
keyctl add user authbench-key "authbench secret key" @s > /dev/null || exit 1

mkdir -p "$work/tree"
for ((i = 0; i < data_mb / 16; i++)); do head -c 16M /dev/urandom > "$work/tree/f$i"; done
types=(sha256 auth-sha256 blake2 auth-blake2b authsum-sha256 authsum-blake2b)
for t in "${types[@]}"; do
	key=(); [[ $t == auth* ]] && key=(--auth-key authbench-key)
	truncate -s $((data_mb * 2 + 512))M "$work/$t.img"
	"$ours" "${key[@]}" mkfs -q -f --csum "$t" --rootdir "$work/tree" "$work/$t.img" > /dev/null 2>&1 || exit 1
done
rm -rf "$work/tree"

declare -A wall cpu mem
for ((r = 0; r < runs; r++)); do
	for t in "${types[@]}"; do
		key=(); [[ $t == auth* ]] && key=(--auth-key authbench-key)
		read -r w c m < <(measure "$ours" "${key[@]}" check --check-data-csum "$work/$t.img")
		if [ -z "${wall[$t]:-}" ] || awk "BEGIN{exit !($w < ${wall[$t]})}"; then
			wall[$t]=$w; cpu[$t]=$c; mem[$t]=$m
		fi
	done
done
printf "check --check-data-csum, %d MiB of data, best of %d (interleaved)\n" "$data_mb" "$runs"
printf "%-16s %8s %10s %10s %s\n" type wall_s user+sys_s rss_KiB ratio
for t in "${types[@]}"; do
	case $t in
	auth-sha256|authsum-sha256) peer=sha256 ;;
	auth-blake2b|authsum-blake2b) peer=blake2 ;;
	*) peer="" ;;
	esac
	ratio=""
	[ -n "$peer" ] && ratio=$(awk "BEGIN{printf \"%.2fx wall, %.2fx cpu vs $peer\", ${wall[$t]} / ${wall[$peer]}, ${cpu[$t]} / (${cpu[$peer]} ? ${cpu[$peer]} : 1)}")
	printf "%-16s %8s %10s %10s %s\n" "$t" "${wall[$t]}" "${cpu[$t]}" "${mem[$t]}" "$ratio"
done
