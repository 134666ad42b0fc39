# Helper library for shell tests: source it first thing.
#   . "$TOP/tests/lib/common.sh"
#
# run_check CMD...          run, fail the test unless it exits 0 (redirect its output freely)
# run_mayfail CMD...        any clean exit is fine (returns it); a crash or signal (>=128) or
#                           a command not found / not runnable (127, 126) fails
# run_mustfail "why" CMD... must fail cleanly: exit 1..125; success, 126/127 or >=128 fail
# expect_exit N CMD...      exit code must be exactly N
# check_golden EXPECT ACTUAL [WHAT]   diff -u, byte for byte but for one line: a first line
#                           naming the program and version ("btrfs-progs v6.19" in the
#                           references, "btrfs-kit v0.1.0" in ours) is dropped from both.
#                           Fails when they differ and when EXPECT has nothing to compare.
# assert_grep PATTERN FILE  / assert_not_grep PATTERN FILE
# _fail MSG / _skip REASON  end the test (skip exits 77 with a "SKIP:" line)
# check_prereq root|loop|btrfs-kernel|progs|python3   skip when missing
# check_prereq corpus|fsck-images|fuzz-images|tools   ../shared fixtures: skip when missing,
#                           but fail when CI=true (a CI run without them proves nothing)
# setup_loopdev FILE        attach a loop device (echo its name); detached at exit
# mount_tracked DEV DIR [OPTS]  mount; unmounted at exit
# corpus_case NAME          decompress a ../shared/corpus case (cached), echo its folder
# each_hostile_image [--fsck] CMD...   CMD... NAME IMAGE for every fuzz image (and with
#                           --fsck every restored fsck image), each decompressed into a
#                           scratch file removed after; HOSTILE_N counts them.  Needs the
#                           fixtures (check_prereq) and fails when a folder has no image.
# hostile_run [-x MAXRC] SECONDS LABEL CMD...   run CMD on a hostile image (stdout $T/out,
#                           stderr $T/err) and return its exit; a hang, crash, exit above
#                           MAXRC (default 1), sanitizer report, or a failure without a
#                           message on stderr fails the test
# each_corpus_golden WHAT RUN OUT...   every corpus case's reference OUT.txt against what
#                           RUN writes (see below); fails when any differs or none compared
# in_key_session "$@"       first thing: the test runs again in a session keyring of its own
# session_key TYPE NAME SECRET   keyctl add TYPE NAME SECRET to the session keyring
# need_tool VAR NAME        VAR=$TOOL_DIR/NAME (tests/tools/NAME.c); fails when it is not built
# need_corrupt_block        need_tool CB corrupt-block
# pattern_data SIZE FILE    FILE of SIZE bytes of "BTRFSKITDATAPATTERN" lines
# marked_file DIR           DIR/dir/file: "hello", owned 4242:4343 (an inode item found by its ids)
# clean_image SRC IMAGE [MKFS-OPTION...]   our mkfs.btrfs -r SRC -b 256M IMAGE, our check clean
# rootdir_image DIR IMAGE [MKFS-OPTION...]   a 256M sparse IMAGE, our btrfs mkfs --rootdir DIR
# corpus_files VAR CASE ORIG   VAR the first device of corpus case CASE, ORIG its files
# item_key VAR IMAGE WHAT AWK-ARG...   VAR what awk prints from corrupt-block's item list of
#                           IMAGE; fails "no WHAT" when it prints nothing
# damaged_repaired, found_repaired, repaired_clean, clean_checks, clean_with_files,
# files_unchanged, files_of, restored_files, refused_unchanged, small_large_images:
#                           damage found, repaired, checked clean, files read back (see each)
# $BTRFS the binary, $TOP the tree, $SHARED ../shared, $T a fresh scratch folder
# The "#### command" lines and FAIL messages go to the test's own stderr (its log), never
# into a file the command's stderr is redirected to.
set -u
: "${TOP:?run tests through tests/run.sh or make test}"
BTRFS=${BTRFS:-$TOP/btrfs}
SHARED=${SHARED:-$TOP/../shared}
SCRATCH_ROOT=${SCRATCH_ROOT:-$TOP/tests/.scratch}
T=$SCRATCH_ROOT/work/${TEST_NAME:-$(basename "$0" .sh)}
T=${T//\//_}; T=$SCRATCH_ROOT/work/$(basename "$T")
rm -rf "$T"; mkdir -p "$T"
_cleanup_mounts=()
_cleanup_loops=()

# A test that passed or skipped leaves no scratch files (a suite run keeps only what failed,
# or everything with KEEP_SCRATCH=1): the big sparse images would otherwise add up.
_cleanup() {
	local rc=$? i
	for ((i = ${#_cleanup_mounts[@]} - 1; i >= 0; i--)); do
		umount "${_cleanup_mounts[i]}" 2>/dev/null || umount -l "${_cleanup_mounts[i]}" 2>/dev/null
	done
	# only devices still backed by this test's files: a name detached earlier
	# may belong to another test (or another worktree's) by now
	for i in "${_cleanup_loops[@]}"; do
		[[ $(losetup -nO BACK-FILE "$i" 2>/dev/null) == "$(realpath "$T")"/* ]] && losetup -d "$i" 2>/dev/null
	done
	# --one-file-system: never into a mount left behind
	if { [ $rc -eq 0 ] || [ $rc -eq 77 ]; } && [ -z "${KEEP_SCRATCH:-}" ]; then
		rm -rf --one-file-system "$T"
	fi
	return 0
}
trap _cleanup EXIT

# fd 8: the test's stderr as it was when this library was sourced (run.sh: the log)
exec 8>&2
_fail() { echo "FAIL: $*" >&8; exit 1; }
_skip() { echo "SKIP: $*"; exit 77; }

_show_cmd() { echo "#### $*" >&8; }

run_check() {
	_show_cmd "$@"
	"$@" || _fail "command failed (exit $?): $*"
}
run_mayfail() {
	local rc
	_show_cmd "$@"
	"$@"; rc=$?
	[ $rc -lt 126 ] || _fail "command crashed, was killed or not found (exit $rc): $*"
	return $rc
}
run_mustfail() {
	local why=$1 rc; shift
	_show_cmd "$@"
	"$@"; rc=$?
	[ $rc -ne 0 ] || _fail "command succeeded but should fail ($why): $*"
	[ $rc -lt 126 ] || _fail "command crashed, was killed or not found (exit $rc; expected a clean failure: $why): $*"
	return 0
}
expect_exit() {
	local want=$1 rc; shift
	_show_cmd "$@"
	"$@"; rc=$?
	[ $rc -eq "$want" ] || _fail "exit $rc, expected $want: $*"
	return 0
}
_golden_norm() { sed '1{/^btrfs-\(progs\|kit\) v[0-9]/d}' "$1"; }
check_golden() {
	local what=${3:-output}
	_golden_norm "$1" > "$T/.golden.expect" || _fail "cannot read golden $1"
	[ -s "$T/.golden.expect" ] || _fail "$what: golden $1 is empty, nothing to compare"
	_golden_norm "$2" > "$T/.golden.actual" || _fail "cannot read $2"
	diff -u "$T/.golden.expect" "$T/.golden.actual" > "$T/.golden.diff" && return 0
	head -n 60 "$T/.golden.diff" >&8
	_fail "$what differs from $1 ($(grep -c '^[-+][^-+]' "$T/.golden.diff") lines)"
}
# each_corpus_golden WHAT RUN OUT...: for each corpus case and each OUT of it with a
# reference $SHARED/corpus/CASE/OUT.txt: RUN OUT DIR DEV... (DIR the case decompressed by
# corpus_case, DEV... its device names dev1.img.. in order, relative to DIR) writes the
# output to $T/actual and returns its exit code; check_golden compares it with the
# reference (in a subshell: each difference is reported, the others still compared).
# Prints a PASS line for each and a summary; fails when any differs or none was compared.
each_corpus_golden() {
	local what=$1 run=$2 c dir devs out ref rc npass=0 nfail=0
	shift 2
	for c in $(cd "$SHARED/corpus" && ls); do
		dir=$(corpus_case "$c") || _fail "corpus case $c not decompressed"
		devs=$(cd "$dir" && ls dev*.img | sort -V)
		for out in "$@"; do
			ref=$SHARED/corpus/$c/$out.txt
			[ -f "$ref" ] || continue
			# shellcheck disable=SC2086
			"$run" "$out" "$dir" $devs
			rc=$?
			if (check_golden "$ref" "$T/actual" "$c $out (exit $rc)"); then
				echo "PASS $c $out"; npass=$((npass + 1))
			else
				nfail=$((nfail + 1))
			fi
		done
	done
	echo "$npass $what outputs identical to the references, $nfail differ"
	[ $nfail -eq 0 ] || _fail "$nfail $what outputs differ from the references"
	[ $npass -gt 0 ] || _fail "no reference compared"
}
assert_grep() {
	grep -q -e "$1" "$2" || { sed 's/^/    /' "$2" >&8; _fail "'$1' not found in $2"; }
}
assert_not_grep() {
	! grep -q -e "$1" "$2" || { grep -e "$1" "$2" >&8; _fail "'$1' unexpectedly found in $2"; }
}

_fixture_missing() {
	[ "${CI:-}" != true ] || _fail "no fixtures in $1 (CI=true: they are required)"
	_skip "no fixtures in $1"
}
check_prereq() {
	local p
	for p in "$@"; do
		case $p in
		root) [ "$(id -u)" -eq 0 ] || _skip "needs root" ;;
		loop) [ "$(id -u)" -eq 0 ] && losetup -f >/dev/null 2>&1 || _skip "no loop devices" ;;
		btrfs-kernel) grep -qw btrfs /proc/filesystems 2>/dev/null || modprobe btrfs 2>/dev/null
			grep -qw btrfs /proc/filesystems 2>/dev/null || _skip "no btrfs in the kernel" ;;
		progs) command -v /usr/bin/btrfs >/dev/null 2>&1 || _skip "btrfs-progs not installed (apt-get install btrfs-progs)" ;;
		python3) command -v python3 >/dev/null 2>&1 || _skip "python3 not installed" ;;
		corpus|fsck-images|fuzz-images|tools)
			compgen -G "$SHARED/$p/*" > /dev/null || _fixture_missing "$SHARED/$p" ;;
		*) _fail "unknown prerequisite $p" ;;
		esac
	done
}

# need_space GIB: skip unless the scratch folder's filesystem has GIB GiB free (sparse images
# that a test fills: a write failing with ENOSPC on the host is not the code under test)
need_space() {
	local avail
	avail=$(df --output=avail -B1 "$T" | tail -n 1) || _fail "df $T"
	[ "$avail" -ge $(($1 << 30)) ] || _skip "needs $1 GiB free for its images, $((avail >> 20)) MiB free in $T"
}

setup_loopdev() {
	local dev
	dev=$(losetup -f --show "$1") || _fail "losetup failed for $1"
	_cleanup_loops+=("$dev")
	echo "$dev"
}
# Callers use: dev=$(setup_loopdev img) runs in a subshell, so register again here.
track_loopdev() { _cleanup_loops+=("$1"); }
mount_tracked() {
	local dev=$1 dir=$2 opts=${3:-}
	mkdir -p "$dir"
	mount ${opts:+-o "$opts"} "$dev" "$dir" || _fail "mount $dev $dir failed"
	_cleanup_mounts+=("$dir")
}

# Decompress a corpus case once into the scratch cache and print its folder
# (under a lock: tests run in parallel may ask for the same case).  The test asks
# check_prereq corpus first (tests/tools/fixture-prereqs.py: cli/133 holds every test to it).
corpus_case() {
	local name=$1 src=$SHARED/corpus/$1 dst=$SCRATCH_ROOT/corpus/$1
	[ -d "$src" ] || _fail "no corpus case $name"
	mkdir -p "$SCRATCH_ROOT/corpus"
	(
		flock 9
		[ -f "$dst/.done" ] && exit 0
		rm -rf "$dst"; mkdir -p "$dst"
		for x in "$src"/dev*.img.xz; do
			xz -dc "$x" | dd of="$dst/$(basename "$x" .xz)" bs=64k conv=sparse status=none || exit 1
		done
		touch "$dst/.done"
	) 9> "$SCRATCH_ROOT/corpus/.$name.lock" || _fail "cannot decompress corpus case $name"
	echo "$dst"
}

# same_dump OURS DEBIANS WHAT: our dump holds what Debian's btrfs-image dump
# of the same filesystem holds.  Uncompressed: byte for byte, but for the
# stale bytes after an index block's last item (btrfs-image leaves the
# previous cluster's items there, we write zeros).  zlib: item for item once
# inflated (our -c9 searches fewer matches than zlib's level 9, so the
# streams differ while the blocks, their order and the clusters do not).
same_dump() {
	local ours=$1 deb=$2 what=$3 tool=$TOP/tests/tools/metadump-clusters.py
	python3 "$tool" "$deb" "$deb.zeroed" > /dev/null || _fail "$what: bad cluster chain in Debian's dump"
	if cmp -s "$ours" "$deb.zeroed"; then rm -f "$deb.zeroed"; return 0; fi
	[ "$(od -An -tu1 -j20 -N1 "$ours" | tr -d ' ')" = 1 ] ||
		_fail "$what: our uncompressed dump differs from Debian's"
	python3 "$tool" --inflate "$ours" "$ours.inflated" > /dev/null || _fail "$what: our dump cannot be inflated"
	python3 "$tool" --inflate "$deb" "$deb.inflated" > /dev/null || _fail "$what: Debian's dump cannot be inflated"
	cmp "$ours.inflated" "$deb.inflated" || _fail "$what: our dump's items differ from Debian's"
	rm -f "$deb.zeroed" "$ours.inflated" "$deb.inflated"
}

# found_repaired IMAGE FOUND FIXED SRC WHAT: our check finds the damage (exit 1,
# FOUND in its output), repaired_clean FIXED IMAGE, and every file of SRC reads back
# unchanged (files_unchanged).
found_repaired() {
	local img=$1 found=$2 fixed=$3 src=$4 what=$5
	expect_exit 1 "$BTRFS" check "$img" > "$T/check" 2>&1
	assert_grep "$found" "$T/check"
	repaired_clean "$fixed" "$img"
	files_unchanged "$img" "$src" "$what"
}

# damaged_repaired SRC ORIG FOUND FIXED CORRUPT-BLOCK-ARGS...: a copy of image SRC in
# $T/img damaged by $CB with those arguments, then found_repaired on it (files of ORIG).
damaged_repaired() {
	local src=$1 orig=$2 found=$3 fixed=$4
	shift 4
	cp --sparse=always "$src" "$T/img"
	run_check "$CB" "$T/img" "$@" > /dev/null
	found_repaired "$T/img" "$found" "$fixed" "$orig" "$*"
}

# repaired_clean FIXED IMAGE...: check --repair --force on the devices exits 0 and says
# FIXED ($T/repair), then clean_checks on them.
repaired_clean() {
	local fixed=$1
	shift
	run_check "$BTRFS" check --repair --force "$@" > "$T/repair" 2>&1
	assert_grep "$fixed" "$T/repair"
	clean_checks "$@"
}

# clean_checks IMAGE...: our check of the devices exits 0 with "no error found" ($T/after),
# Debian's of the first exits 0 ($T/after-debian).
clean_checks() {
	run_check "$BTRFS" check "$@" > "$T/after" 2>&1
	assert_grep "no error found" "$T/after"
	run_check /usr/bin/btrfs check "$1" > "$T/after-debian" 2>&1
}

# restored_files IMAGE DIR: the files of IMAGE as Debian's restore reads them, into DIR
# (the originals a repaired copy must read back unchanged).
restored_files() {
	mkdir -p "$2"
	run_check /usr/bin/btrfs restore "$1" "$2" > /dev/null 2>&1
}

# files_of IMAGE: the files of IMAGE (Debian's restore) in $T/files, emptied first.
files_of() {
	rm -rf "$T/files"
	restored_files "$1" "$T/files"
}

# files_unchanged IMAGE SRC WHAT: every file of SRC (a folder, or one file) reads back
# from IMAGE unchanged: files_of, then diff -r against $T/files (SRC a file: against the
# file of its name in $T/files).
files_unchanged() {
	local img=$1 src=$2 what=$3 got=$T/files
	files_of "$img"
	[ -d "$src" ] || got=$T/files/$(basename "$src")
	diff -r "$src" "$got" || _fail "$what: files read back changed"
}

# need_tool VAR NAME: VAR=$TOOL_DIR/NAME, a test tool (tests/tools/NAME.c, built by
# make unit-bins, which every test target runs first); fails when it is not built.
need_tool() {
	[ -x "$TOOL_DIR/$2" ] || _fail "$2 not built (make unit-bins)"
	printf -v "$1" '%s' "$TOOL_DIR/$2"
}

# need_corrupt_block: $CB, the corruption tool (tests/tools/corrupt-block).
need_corrupt_block() {
	need_tool CB corrupt-block
}

# refused_unchanged IMAGE PATTERN: check --repair on IMAGE refuses (exit 1), says
# PATTERN, and leaves every byte as it was.
refused_unchanged() {
	local img=$1 pat=$2
	cp --sparse=always "$img" "$T/before"
	expect_exit 1 "$BTRFS" check --repair --force "$img" > "$T/repair" 2>&1
	assert_grep "$pat" "$T/repair"
	cmp "$T/before" "$img" > /dev/null || _fail "a refused repair changed the image"
}

# small_large_images: $T/small (12 files) and $T/large (600 files, tree 5 a
# node over leaves) made by our mkfs --rootdir into $T/s.img and $T/l.img.
small_large_images() {
	local i
	mkdir -p "$T/small" "$T/large"
	for i in $(seq 1 12); do echo "file $i" > "$T/small/f$i"; done
	for i in $(seq 1 600); do echo "file $i" > "$T/large/f$i"; done
	rootdir_image "$T/small" "$T/s.img"
	rootdir_image "$T/large" "$T/l.img"
}

# clean_with_files IMAGE SRC WHAT: after a repair, our check and Debian's are clean on
# IMAGE (clean_checks) and every file of SRC reads back unchanged (files_unchanged).
clean_with_files() {
	clean_checks "$1"
	files_unchanged "$1" "$2" "$3"
}

# corpus_files VAR CASE ORIG: VAR names the first device of corpus case CASE (decompressed
# by corpus_case), and ORIG (emptied first) holds its files as Debian's restore reads them.
corpus_files() {
	local dir
	dir=$(corpus_case "$2") || _fail "corpus case $2 not decompressed"
	printf -v "$1" '%s' "$dir/dev1.img"
	rm -rf "$3"
	restored_files "$dir/dev1.img" "$3"
}

# item_key VAR IMAGE WHAT AWK-ARG...: VAR is what awk (with those arguments: options, then
# the program) prints from corrupt-block's list of the items of IMAGE (a line each: TREE
# KEY SIZE TYPE LEAF); fails with "no WHAT" when awk prints nothing, and when the list fails.
item_key() {
	local var=$1 img=$2 what=$3 out
	shift 3
	"$CB" "$img" list > "$T/.items" || _fail "corrupt-block cannot list the items of $img"
	out=$(awk "$@" "$T/.items")
	[ -n "$out" ] || _fail "no $what"
	printf -v "$var" '%s' "$out"
}

# pattern_data SIZE FILE: FILE of SIZE bytes of "BTRFSKITDATAPATTERN" lines (data a test
# can find again in an image).
pattern_data() {
	yes BTRFSKITDATAPATTERN | head -c "$1" > "$2" || _fail "cannot write $2"
}

# marked_file DIR: DIR/dir/file holding "hello" and owned 4242:4343, the one inode of those
# ids in the image made of DIR: tests find its inode item (and patch its bytes) by them.
marked_file() {
	mkdir -p "$1/dir" || _fail "mkdir $1/dir"
	echo hello > "$1/dir/file" || _fail "cannot write $1/dir/file"
	chown 4242:4343 "$1/dir/file" || _fail "chown $1/dir/file"
}

# clean_image SRC IMAGE [MKFS-OPTION...]: IMAGE, 256 MiB, made by our mkfs.btrfs -r SRC
# with those options; our check finds it clean (exit 0, "no error found").
clean_image() {
	local src=$1 img=$2
	shift 2
	run_check "$TOP/mkfs.btrfs" -q -f "$@" -r "$src" -b 256M "$img" > /dev/null
	run_check "$BTRFS" check "$img" > "$T/clean-check" 2>&1
	assert_grep "no error found" "$T/clean-check"
}

# rootdir_image DIR IMAGE [MKFS-OPTION...]: IMAGE a sparse file of 256 MiB made by our
# btrfs mkfs --rootdir DIR with those options (mkfs may enlarge the file).
rootdir_image() {
	local dir=$1 img=$2
	shift 2
	truncate -s 256M "$img" || _fail "truncate $img"
	run_check "$BTRFS" mkfs -q -f --rootdir "$dir" "$@" "$img" > /dev/null
}

# in_key_session "$@": called first thing, before the test does anything, runs the test
# again inside a session keyring of its own (keyctl session), so the keys it adds are gone
# when it ends; skips without keyctl.
in_key_session() {
	[ -n "${IN_KEY_SESSION:-}" ] && return 0
	command -v keyctl > /dev/null || _skip "keyctl not installed (apt-get install keyutils)"
	IN_KEY_SESSION=1 exec keyctl session - bash "$0" "$@"
}

# session_key TYPE NAME SECRET: the key added to the session keyring.
session_key() {
	keyctl add "$1" "$2" "$3" @s > /dev/null || _fail "cannot add a $1 key"
}

# Debian's btrfs-image -r DUMP OUT, as a reference to compare ours with, with
# one worker thread (-t 1).  With more, a worker may fix up a chunk tree
# block before another has taken the superblock item: btrfs-image then reads
# num_devices from its superblock buffer before it is filled (malloc'ed,
# not zeroed), finds it is not 1 and rewrites the chunk items as for a
# multi-device dump (sub_stripes 0, checksum): a different image now and
# then, more often on a loaded machine (6.19 does the same).  One worker
# takes the superblock, the dump's first item, first.
debian_restore() {
	run_check /usr/bin/btrfs-image -t 1 -r "$1" "$2" > /dev/null 2>&1
}

hostile_run() {
	local max=1 secs label rc
	[ "$1" = -x ] && { max=$2; shift 2; }
	secs=$1 label=$2; shift 2
	timeout "$secs" "$@" > "$T/out" 2> "$T/err"; rc=$?
	if [ $rc -gt "$max" ] || grep -q -e 'Sanitizer' -e 'runtime error:' "$T/err"; then
		tail -n 20 "$T/err" >&8
		[ $rc -ne 124 ] || _fail "$label: hangs (killed after ${secs}s)"
		_fail "$label: exit $rc (crash, sanitizer report or unexpected exit code)"
	fi
	[ $rc -eq 0 ] || [ -s "$T/err" ] || _fail "$label: exit $rc without a message"
	return $rc
}

each_hostile_image() {
	local fsck=0 x d name dir=$T/hostile nfuzz=0 nfsck=0
	[ "$1" = --fsck ] && { fsck=1; shift; }
	check_prereq fuzz-images
	[ $fsck = 0 ] || check_prereq fsck-images
	for x in "$SHARED"/fuzz-images/*.xz; do
		[ -f "$x" ] || continue
		name=$(basename "$x" .xz)
		rm -rf "$dir"; mkdir -p "$dir"
		xz -dc "$x" | dd of="$dir/$name" bs=64k conv=sparse status=none || _fail "cannot decompress $x"
		"$@" "$name" "$dir/$name"
		nfuzz=$((nfuzz + 1))
	done
	[ $nfuzz -gt 0 ] || _fail "no image in $SHARED/fuzz-images"
	for d in "$SHARED"/fsck-images/*/; do
		[ $fsck = 1 ] && [ -f "$d/restored.raw.tar.xz" ] || continue
		name=$(basename "$d")
		rm -rf "$dir"; mkdir -p "$dir"
		tar -xSJf "$d/restored.raw.tar.xz" -C "$dir" || _fail "cannot extract $d"
		"$@" "$name" "$dir/restored.raw"
		nfsck=$((nfsck + 1))
	done
	[ $fsck = 0 ] || [ $nfsck -gt 0 ] || _fail "no restored image in $SHARED/fsck-images"
	rm -rf "$dir"
	HOSTILE_N=$((nfuzz + nfsck))
}
