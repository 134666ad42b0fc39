#!/bin/bash
# Read path on every corpus filesystem: every block of every tree reads and
# verifies (checksum, header, tree-checker) in BFS and DFS order, the block
# count equals the number of blocks in the reference dump-tree, and item
# iteration/search agrees with the walk (tree-walk --search).
. "$TOP/tests/lib/common.sh"
check_prereq corpus
need_tool tool tree-walk
n=0
for src in "$SHARED"/corpus/*/; do
	name=$(basename "$src")
	dir=$(corpus_case "$name")
	want=$(grep -cE '^(leaf|node) [0-9]+ (items|level)' "$src/dump-tree.txt")
	for order in --bfs --dfs; do
		extra=; [ $order = --bfs ] && extra=--search
		(cd "$dir" && "$tool" --noscan $order $extra dev*.img) > "$T/$name$order.out" 2>&1 ||
			{ cat "$T/$name$order.out" >&2; _fail "$name $order: tree-walk failed"; }
		got=$(sed -n 's/^total: trees [0-9]* blocks \([0-9]*\) .*/\1/p' "$T/$name$order.out")
		[ "$got" = "$want" ] || _fail "$name $order: $got blocks walked, reference dump-tree has $want"
	done
	n=$((n + 1))
done
[ $n -gt 0 ] || _fail "no corpus cases"
echo "$n corpus cases: all blocks verified"
