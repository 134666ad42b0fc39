#!/bin/bash
# Bash completion (btrfs --generate-completion bash) against --help: every option a
# command's --help lists is completed and every completed option is in --help, every
# subcommand a group lists is completed; then the completion function itself on a few
# command lines (COMP_WORDS/COMP_CWORD in, COMPREPLY out).
. "$TOP/tests/lib/common.sh"

run_check "$BTRFS" --generate-completion bash > "$T/btrfs.bash"
expect_exit 1 "$BTRFS" --generate-completion zsh > /dev/null 2> "$T/err"
assert_grep "completion for shell 'zsh' is not available" "$T/err"
. "$T/btrfs.bash"

# Options of a --help text: "    -d|--data PROFILE  ..." lines, as words.
help_options() {
	sed -n 's/^    \(-[^ []*\).*/\1/p' | tr '|' '\n' | sort -u
}
paths=0
for path in "${!_btrfs_kit_opts[@]}"; do
	# "btrfs help --help" is the top help; help's one option shows in its synopsis there
	if [ "$path" = "btrfs help" ]; then
		"$BTRFS" --help > "$T/help"
		assert_grep '^    btrfs help \[--full\]$' "$T/help"
		[ "${_btrfs_kit_opts[$path]}" = --full ] || _fail "help completes '${_btrfs_kit_opts[$path]}'"
		continue
	fi
	read -ra words <<< "${path#btrfs}"
	"$BTRFS" "${words[@]}" --help > "$T/help" 2>&1 || _fail "'btrfs ${words[*]} --help' failed"
	help_options < "$T/help" > "$T/from-help"
	tr ' ' '\n' <<< "${_btrfs_kit_opts[$path]}" | sed '/^$/d' | sort -u > "$T/from-completion"
	diff -u "$T/from-help" "$T/from-completion" > "$T/diff" ||
		_fail "'$path': options of --help (-) and of the completion (+) differ: $(cat "$T/diff")"
	paths=$((paths + 1))
done
[ "$paths" -ge 12 ] || _fail "only $paths command paths in the completion"
for group in "btrfs" "btrfs balance" "btrfs inspect-internal"; do
	read -ra words <<< "${group#btrfs}"
	"$BTRFS" "${words[@]}" --help > "$T/help"
	sed -n 's/^    btrfs \([a-z-]* \)\{0,1\}\([a-z-]*\).*/\2/p' "$T/help" | sort -u > "$T/from-help"
	[ "$group" = btrfs ] && sed -n 's/^    btrfs \([a-z-]*\).*/\1/p' "$T/help" | sort -u > "$T/from-help"
	tr ' ' '\n' <<< "${_btrfs_kit_sub[$group]}" | sort -u > "$T/from-completion"
	[ -s "$T/from-help" ] || _fail "no subcommand found in '$group --help'"
	comm -23 "$T/from-help" "$T/from-completion" > "$T/missing"
	[ ! -s "$T/missing" ] || _fail "'$group': subcommands not completed: $(cat "$T/missing")"
done

# The function: cursor word index, then the words.
complete_words() {
	COMP_CWORD=$1; shift
	COMP_WORDS=("$@")
	COMPREPLY=()
	_btrfs_kit
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}
expect_reply() { # expected cword words...
	local want=$1 got
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] || _fail "completing '$*': got '$got', expected '$want'"
}
expect_reply 'balance' 1 btrfs bal
expect_reply 'start status' 2 btrfs balance st
expect_reply 'dump-super dump-tree' 2 btrfs inspect-internal dump
expect_reply 'raid1 raid10 raid1c3 raid1c4' 2 mkfs.btrfs -m raid1
expect_reply 'raid0' 4 btrfs -q mkfs -d raid0
expect_reply 'sha256' 3 btrfs mkfs --csum sh
expect_reply 'blake2 blake2b' 3 mkfs.btrfs --csum = bl
expect_reply 'no-holes,^free-space-tree' 2 mkfs.btrfs -O no-holes,^fr
expect_reply 'free-space-tree fst' 2 mkfs.btrfs -R f
expect_reply 'free-space-tree fst list-all quota' 2 mkfs.btrfs -R ''
expect_reply 'checksum chunk' 4 btrfs inspect-internal dump-tree -t ch
expect_reply '-dusage=5,limit=' 3 btrfs balance start -dusage=5,li
expect_reply 'lowmem' 2 fsck.btrfs --mode l
expect_reply 'v1 v2' 3 btrfs check --clear-space-cache v
expect_reply 'json' 2 btrfs --format j
expect_reply '--csum' 1 mkfs.btrfs --cs
expect_reply '--restore' 2 btrfs image --res
# a value that is no fixed set completes file names
touch "$T/some-file"
expect_reply "$T/some-file" 3 btrfs mkfs --rootdir "$T/some-f"
echo ok
