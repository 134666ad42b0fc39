// SPDX-License-Identifier: GPL-2.0
/*
 * Leaves that fail the tree-checker (check --repair): finding them in every
 * tree, having them mended (check/leaf-mend.c), serving the mended copies
 * in place of the disk's, and writing them in the repair's transaction.
 * See repair-leaves.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/chunk-length-told.h"
#include "check/header-mend.h"
#include "check/leaf-mend.h"
#include "check/repair-leaves.h"
#include "check/repair-root-items.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"

struct salvaged_leaf {
	u64 bytenr;
	struct btrfs_key first;    /* its slot 0 key: a search for it reaches the leaf */
	u64 *trees;                /* trees whose walk reached it */
	size_t trees_nr;
	size_t trees_alloc;
};

struct check_salvage {
	struct salvaged_leaf *leaves;
	size_t leaves_nr;
	size_t leaves_alloc;
	u64 *refused;              /* leaves looked at and left as they are */
	size_t refused_nr;
	size_t refused_alloc;
};

/* ---- finding the leaves ---------------------------------------------------- */

static struct salvaged_leaf *find_leaf(struct check_salvage *s, u64 bytenr)
{
	size_t i;

	for (i = 0; i < s->leaves_nr; i++)
		if (s->leaves[i].bytenr == bytenr)
			return &s->leaves[i];
	return NULL;
}

static bool refused(const struct check_salvage *s, u64 bytenr)
{
	size_t i;

	for (i = 0; i < s->refused_nr; i++)
		if (s->refused[i] == bytenr)
			return true;
	return false;
}

static void unrefuse(struct check_salvage *s, u64 bytenr)
{
	for (size_t i = 0; i < s->refused_nr; i++)
		if (s->refused[i] == bytenr)
			s->refused[i] = s->refused[--s->refused_nr];
}

static int add_tree(struct salvaged_leaf *l, u64 tree)
{
	size_t i;
	u64 *t;

	for (i = 0; i < l->trees_nr; i++)
		if (l->trees[i] == tree)
			return 0;
	t = CHECK_PUSH(l, trees);
	if (!t)
		return -ENOMEM;
	*t = tree;
	return 0;
}

/* The copy of bytenr with a good checksum and header, or NULL. */
static struct extent_buffer *good_copy(struct btrfs_fs_info *fs, u64 bytenr)
{
	static const struct read_policy header_only = { .relax = READ_NO_TREE_CHECKER };
	const struct tree_check expect = { .level = 0 };
	int mirror, nr = btrfs_num_mirrors(fs, bytenr);

	for (mirror = 1; mirror <= nr; mirror++) {
		struct extent_buffer *eb;

		if (btrfs_read_tree_block_mirror(fs, bytenr, mirror, &eb) < 0)
			continue;
		if (btrfs_verify_tree_block(fs, eb, &expect, &header_only, NULL, 0) == 0)
			return eb;
		free_extent_buffer(eb);
	}
	return NULL;
}

/*
 * Install a block mended in memory (its checksum recomputed; on success eb
 * is the override's, else still the caller's) and record it with the tree
 * that reached it, for check_salvage_write().  0 or a negative errno.
 */
static int install_mended(struct btrfs_fs_info *fs, struct check_salvage *s, struct extent_buffer *eb,
			  u64 tree, const char *what)
{
	struct salvaged_leaf *l = CHECK_PUSH(s, leaves);
	u8 csum[BTRFS_CSUM_SIZE];
	int ret;

	if (!l)
		return -ENOMEM;
	btrfs_csum_tree_block(fs, eb, csum);
	memcpy(btrfs_header(eb)->csum, csum, BTRFS_CSUM_SIZE);
	l->bytenr = eb->start;
	btrfs_block_key_to_cpu(eb, &l->first, 0);
	ret = add_tree(l, tree);
	if (ret == 0)
		ret = btrfs_override_tree_block(fs, eb);
	if (ret == 0) {
		printf("%s %llu mended in memory, to be written by the repair\n", what,
		       (unsigned long long)l->bytenr);
		return 0;
	}
	free(l->trees);
	s->leaves_nr--;
	return ret;
}

/* Does leaf eb of tree hold an item of a key type that tree does not have? */
static bool has_foreign_key_type(u64 tree, const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);

	for (u32 i = 0; i < nr; i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (check_key_type_foreign(tree, &key))
			return true;
	}
	return false;
}

/*
 * A leaf of tree that did not read: mend and install it if it only fails
 * the tree-checker.  reads: a leaf that reads but holds what the mend
 * undoes (a root tree leaf with a root item whose root block does not
 * read, a leaf with an item of a type its tree does not have): mend and
 * install it if that changes it.
 */
static int salvage_one(struct btrfs_fs_info *fs, struct check_salvage *s, u64 bytenr, u64 tree,
		       bool reads, const struct btrfs_key *bound)
{
	struct extent_buffer *eb, *orig = NULL;
	char msg[512];
	u64 *r;
	int ret;

	eb = good_copy(fs, bytenr);
	if (!eb)
		return 0;
	if (!reads && btrfs_check_tree_block_msg(btrfs_fs_geometry(fs), eb, msg, sizeof(msg)) == 0) {
		/* it failed for another reason: not ours, unless its chunks overlap (the map left one out) */
		if (tree != BTRFS_CHUNK_TREE_OBJECTID || !chunk_leaf_overlaps(eb)) {
			free_extent_buffer(eb);
			return 0;
		}
		reads = true;
	} else if (!reads) {
		printf("%s\n", msg);
	}
	if (reads) {
		orig = clone_extent_buffer(eb);
		if (!orig) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = check_mend_leaf(fs, eb, tree, bound);
	if (ret == -ENOMEM)
		goto out;
	if (ret == 0 && orig && !memcmp(orig->data, eb->data, eb->len))
		ret = -EUCLEAN;               /* nothing mended: the passes report it */
	if (ret == 0) {
		ret = install_mended(fs, s, eb, tree, "Leaf");
		if (ret == 0) {
			free_extent_buffer(orig);     /* eb is the override's now */
			return 0;
		}
		if (ret == -ENOMEM)
			goto out;
	}
	r = CHECK_PUSH(s, refused);
	ret = r ? 0 : -ENOMEM;
	if (r)
		*r = bytenr;
out:
	free_extent_buffer(orig);
	free_extent_buffer(eb);
	return ret;
}

struct walk_arg {
	struct check_salvage *s;
	u64 tree;
	struct header_expect next;        /* the block about to be visited, as its pointer says */
	bool have_bound[BTRFS_MAX_LEVEL]; /* per level: the block there has keys below bound */
	struct btrfs_key bound[BTRFS_MAX_LEVEL];
	bool again;                       /* a node was mended: walk again to go below it */
};

/*
 * The block x names, if its header alone is wrong: mended and installed (1),
 * else 0.  nritems: its leaf item count may be taken from the packing.
 */
static int salvage_header(struct btrfs_fs_info *fs, struct check_salvage *s, const struct header_expect *x,
			  bool nritems)
{
	struct header_expect y = *x;
	struct extent_buffer *eb;
	int ret;

	y.nritems = nritems;
	ret = check_mend_header(fs, &y, &eb);
	if (ret <= 0)
		return ret;
	ret = install_mended(fs, s, eb, x->tree, "Tree block");
	if (ret < 0)
		free_extent_buffer(eb);
	return ret < 0 ? ret : 1;
}

static int salvage_ptr(struct btrfs_fs_info *fs, const struct extent_buffer *node, int slot, u64 bytenr,
		       u64 generation, int level, void *arg)
{
	struct walk_arg *w = arg;
	struct header_expect *x = &w->next;

	if (level < 0 || level + 1 >= BTRFS_MAX_LEVEL)
		return BTRFS_WALK_DESCEND;
	*x = (struct header_expect){
		.bytenr = bytenr, .tree = w->tree, .level = level, .transid = generation, .have_first = true,
		.parent = node->start, .slot = slot,
	};
	btrfs_node_key_to_cpu(node, &x->first, slot);
	if ((u32)slot + 1 < btrfs_eb_nritems(node)) {
		x->have_bound = true;
		btrfs_node_key_to_cpu(node, &x->bound, slot + 1);
	} else if (w->have_bound[level + 1]) {
		x->have_bound = true;
		x->bound = w->bound[level + 1];
	}
	w->have_bound[level] = x->have_bound;
	w->bound[level] = x->bound;
	return BTRFS_WALK_DESCEND;
}

/*
 * A block that verifies in full but for its first key, which lies above the
 * key its parent's pointer gives and below the pointer's right neighbour:
 * the pointer's key is stale (its child's first item deleted, the parent
 * not updated, as the kernel does by fixing the keys up the path), not the
 * block.  The parent is mended in memory (the key set to the child's first)
 * and installed: 1, or 0 when not so.  Not at a parent's first slot, whose
 * key its own parent repeats, unless the parent is the tree's root.
 */
static int salvage_stale_pointer(struct btrfs_fs_info *fs, struct check_salvage *s, const struct header_expect *x)
{
	static const struct read_policy quiet = { .quiet = true };
	struct tree_check tc = { .level = x->level, .transid = x->transid };
	struct extent_buffer *eb, *node = NULL, *copy;
	struct btrfs_key have, k;
	int ret = 0;

	struct btrfs_tree_ref root;

	if (!x->have_first || !x->parent || x->slot < 0 || find_leaf(s, x->parent))
		return 0;
	/* a first slot's key is its parent's too, but for the tree's root node */
	if (!x->slot && (btrfs_find_tree_root(fs, x->tree, &root) < 0 || root.bytenr != x->parent))
		return 0;
	if (btrfs_read_tree_block_policy(fs, x->bytenr, &tc, &quiet, &eb) < 0)
		return 0;
	if (btrfs_eb_nritems(eb))
		btrfs_block_key_to_cpu(eb, &have, 0);
	/*
	 * a first key the tree cannot hold is the block's damage (the header
	 * mend's); one field off the pointer's may be too, which in a tree of
	 * files would move an item to another inode: only in the extent tree,
	 * whose items the references rebuild
	 */
	if (!btrfs_eb_nritems(eb) || btrfs_comp_cpu_keys(&have, &x->first) <= 0 ||
	    (x->have_bound && btrfs_comp_cpu_keys(&have, &x->bound) >= 0) ||
	    check_key_impossible(fs, x->tree, &have) ||
	    (x->tree != BTRFS_EXTENT_TREE_OBJECTID &&
	     (have.objectid != x->first.objectid) + (have.type != x->first.type) +
	     (have.offset != x->first.offset) < 2)) {
		free_extent_buffer(eb);
		return 0;
	}
	free_extent_buffer(eb);
	tc = (struct tree_check){ .level = x->level + 1 };
	if (btrfs_read_tree_block_policy(fs, x->parent, &tc, &quiet, &node) < 0)
		return 0;
	if ((u32)x->slot < btrfs_eb_nritems(node) && btrfs_node_blockptr(node, x->slot) == x->bytenr) {
		btrfs_node_key_to_cpu(node, &k, x->slot);
		copy = btrfs_comp_cpu_keys(&k, &x->first) ? NULL : clone_extent_buffer(node);
		if (copy) {
			btrfs_cpu_key_to_disk(&btrfs_node_key_ptr(copy, x->slot)->key, &have);
			printf("Tree block %llu of tree %llu: key of slot %d (%llu %u %llu) is not its child %llu's first (%llu %u %llu), which the child's first item's deletion left: set to it\n",
			       (unsigned long long)x->parent, (unsigned long long)x->tree, x->slot,
			       (unsigned long long)k.objectid, k.type, (unsigned long long)k.offset,
			       (unsigned long long)x->bytenr, (unsigned long long)have.objectid, have.type,
			       (unsigned long long)have.offset);
			ret = install_mended(fs, s, copy, x->tree, "Tree block");
			if (ret < 0)
				free_extent_buffer(copy);
			else
				ret = 1;
		}
	}
	free_extent_buffer(node);
	return ret;
}

static int salvage_visit(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr,
			 int err, void *arg)
{
	static const struct btrfs_key largest = { (u64)-1, (u8)-1, (u64)-1 };
	struct walk_arg *w = arg;
	struct salvaged_leaf *l = find_leaf(w->s, bytenr);
	bool header = w->next.bytenr == bytenr;   /* what its pointer says is known */
	const struct btrfs_key *bound = NULL;
	int ret;

	if (l)
		return add_tree(l, w->tree);
	if (refused(w->s, bytenr))
		return 0;

	/* a block that reads: flags alone are the extents pass's to fix (a copy on write) */
	if (header && err < 0) {
		ret = salvage_stale_pointer(fs, w->s, &w->next);
		if (ret) {
			w->again = ret > 0;    /* walk again, below the mended parent */
			return ret < 0 ? ret : 0;
		}
	}
	if (header && (err < 0 || (eb && (check_expect_faults(fs, &w->next, eb) &
					  (HEADER_OWNER | HEADER_BACKREF_REV))))) {
		ret = salvage_header(fs, w->s, &w->next, false);
		if (ret > 0 && w->next.level > 0 && err < 0)
			w->again = true;    /* its subtree was skipped */
		if (ret)
			return ret < 0 ? ret : 0;
	}
	if (!eb || btrfs_eb_level(eb) != 0)
		return 0;
	/* what bounds its keys: the parent's next key, or none for the tree's last leaf */
	if (header)
		bound = w->next.have_bound ? &w->next.bound : &largest;
	if (err >= 0)
		return (w->tree == BTRFS_ROOT_TREE_OBJECTID && check_leaf_has_stale_root(fs, eb)) ||
		       has_foreign_key_type(w->tree, eb) ?
		       salvage_one(fs, w->s, bytenr, w->tree, true, bound) : 0;
	ret = salvage_one(fs, w->s, bytenr, w->tree, false, bound);
	/* the items could not be mended as they are: perhaps the count is wrong */
	if (ret == 0 && header && refused(w->s, bytenr)) {
		ret = salvage_header(fs, w->s, &w->next, true);
		if (ret > 0)
			unrefuse(w->s, bytenr);
	}
	return ret < 0 ? ret : 0;
}

static const struct read_policy keep_bad = { .on_failure = READ_KEEP_BAD, .quiet = true };

/* A root block that does not read, as any other block: its header, or (a leaf) its items mended. */
static int salvage_root_block(struct btrfs_fs_info *fs, struct walk_arg *w, const struct btrfs_tree_ref *tree)
{
	struct tree_check expect = { .level = tree->level, .transid = tree->generation };
	struct extent_buffer *bad = NULL;
	int err, ret;

	w->next = (struct header_expect){
		.bytenr = tree->bytenr, .tree = tree->objectid, .level = tree->level,
		.transid = tree->generation,
	};
	err = btrfs_read_tree_block_policy(fs, tree->bytenr, &expect, &keep_bad, &bad);
	ret = err == -ENOMEM ? err : salvage_visit(fs, bad, tree->bytenr, err < 0 ? err : -EUCLEAN, w);
	free_extent_buffer(bad);
	return ret;
}

/* One walk of the tree; a root block whose header alone is wrong is mended first. */
static int salvage_walk(struct btrfs_fs_info *fs, struct walk_arg *w, const struct btrfs_tree_ref *tree)
{
	static const struct read_policy quiet = { .quiet = true };
	struct tree_check expect = { .level = tree->level, .transid = tree->generation };
	struct extent_buffer *root;
	int ret;

	memset(w->have_bound, 0, sizeof(w->have_bound));
	w->next = (struct header_expect){
		.bytenr = tree->bytenr, .tree = tree->objectid, .level = tree->level,
		.transid = tree->generation,
	};
	ret = btrfs_read_tree_block_policy(fs, tree->bytenr, &expect, &quiet, &root);
	if (ret < 0 && ret != -ENOMEM && !find_leaf(w->s, tree->bytenr) && !refused(w->s, tree->bytenr)) {
		ret = salvage_root_block(fs, w, tree);
		if (ret < 0)
			return ret;
		w->again = false;      /* walked below now, if it reads */
		ret = btrfs_read_tree_block_policy(fs, tree->bytenr, &expect, &quiet, &root);
	}
	if (ret < 0)
		return ret;
	ret = btrfs_walk_block_ptrs(fs, tree, root, BTRFS_WALK_DFS, &keep_bad, 0, salvage_ptr,
				    salvage_visit, w);
	free_extent_buffer(root);
	return ret;
}

static int salvage_tree(struct btrfs_fs_info *fs, struct check_salvage *s,
			const struct btrfs_tree_ref *tree)
{
	struct walk_arg w = { .s = s, .tree = tree->objectid };
	int ret, walks = 0;

	/* a mended node's subtree is only reached by the next walk */
	do {
		w.again = false;
		ret = salvage_walk(fs, &w, tree);
	} while (ret != -ENOMEM && w.again && ++walks < BTRFS_MAX_LEVEL);
	/* read errors are the passes' to report; only running out of memory stops us */
	return ret == -ENOMEM ? ret : 0;
}

/* Trees the write engine can reach by objectid: one ROOT_ITEM each, no log or reloc trees. */
static bool walkable(u64 objectid)
{
	return objectid != BTRFS_TREE_LOG_OBJECTID && objectid != BTRFS_TREE_LOG_FIXUP_OBJECTID &&
	       objectid != BTRFS_TREE_RELOC_OBJECTID && objectid != BTRFS_ROOT_TREE_OBJECTID &&
	       objectid != BTRFS_CHUNK_TREE_OBJECTID;
}

/* The first ROOT_ITEM of every walkable tree, from the (possibly mended) root tree. */
static int list_trees(struct btrfs_fs_info *fs, struct btrfs_tree_ref **out, size_t *nr)
{
	struct btrfs_key key = { 0, BTRFS_ROOT_ITEM_KEY, 0 }, found;
	struct btrfs_tree_ref root, *refs = NULL;
	struct btrfs_path path;
	size_t n = 0, alloc = 0;
	u64 last = 0;
	int ret;

	ret = btrfs_find_tree_root(fs, BTRFS_ROOT_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &root, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		btrfs_path_item_key(&path, &found);
		if (found.type == BTRFS_ROOT_ITEM_KEY && walkable(found.objectid) &&
		    (!n || found.objectid != last) &&
		    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) >=
		    offsetof(struct btrfs_root_item, generation_v2)) {
			ret = ARRAY_GROW(refs, n, alloc);
			if (ret < 0)
				break;
			btrfs_tree_ref_from_root_item(&refs[n++], found.objectid,
						      btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]));
			last = found.objectid;
		}
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	*out = refs;
	*nr = n;
	return ret == -ENOMEM ? ret : 0;
}

int check_salvage_chunk_root(struct btrfs_fs_info *fs, const char *why, void *arg)
{
	struct check_salvage **sp = arg;
	const struct btrfs_super_block *sb = btrfs_fs_super(fs);
	struct btrfs_tree_ref tree = {
		.objectid = BTRFS_CHUNK_TREE_OBJECTID, .bytenr = btrfs_super_chunk_root(sb),
		.level = btrfs_super_chunk_root_level(sb),
		.generation = btrfs_super_chunk_root_generation(sb),
	};
	struct walk_arg w = { .tree = tree.objectid };
	int ret;

	if (!*sp) {
		*sp = calloc(1, sizeof(**sp));
		if (!*sp)
			return -ENOMEM;
	}
	w.s = *sp;
	error("chunk root %llu %s (generation %llu, level %d)", (unsigned long long)tree.bytenr, why,
	      (unsigned long long)tree.generation, tree.level);
	ret = salvage_root_block(fs, &w, &tree);
	if (ret < 0)
		return ret;
	if (find_leaf(w.s, tree.bytenr))
		return 1;
	printf("Chunk root %llu cannot be mended\n", (unsigned long long)tree.bytenr);
	return 0;
}

int check_salvage_leaves(struct btrfs_fs_info *fs, struct check_salvage **out)
{
	struct check_salvage *s = *out ? *out : calloc(1, sizeof(*s));
	struct btrfs_tree_ref ref, *trees = NULL;
	size_t nr = 0, i;
	int ret = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	/* the root tree first: the other trees are found through it */
	if (btrfs_find_tree_root(fs, BTRFS_ROOT_TREE_OBJECTID, &ref) == 0)
		ret = salvage_tree(fs, s, &ref);
	if (!ret && btrfs_find_tree_root(fs, BTRFS_CHUNK_TREE_OBJECTID, &ref) == 0)
		ret = salvage_tree(fs, s, &ref);
	if (!ret)
		ret = list_trees(fs, &trees, &nr);
	for (i = 0; i < nr && !ret; i++)
		ret = salvage_tree(fs, s, &trees[i]);
	free(trees);
	if (ret < 0) {
		check_salvage_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

size_t check_salvage_count(const struct check_salvage *s)
{
	return s ? s->leaves_nr : 0;
}

bool check_salvaged(const struct check_salvage *s, u64 bytenr)
{
	return s && find_leaf((struct check_salvage *)s, bytenr);
}

int check_salvage_write(const struct check_salvage *s, struct btrfs_trans *t)
{
	size_t i, j;
	int ret;

	for (i = 0; s && i < s->leaves_nr; i++) {
		const struct salvaged_leaf *l = &s->leaves[i];

		for (j = 0; j < l->trees_nr; j++) {
			struct btrfs_wroot *root;
			struct btrfs_path path;
			char key[80];

			snprintf(key, sizeof(key), "(%llu %u %llu)",
				 (unsigned long long)l->first.objectid, l->first.type,
				 (unsigned long long)l->first.offset);
			ret = btrfs_trans_get_root(t, l->trees[j], &root);
			if (ret == 0) {
				btrfs_init_path(&path);
				ret = btrfs_search_slot(t, root, &l->first, &path, 0, 1);
				if (ret == 0)
					printf("Leaf %llu of tree %llu (key %s) mended, copied to %llu\n",
					       (unsigned long long)l->bytenr,
					       (unsigned long long)l->trees[j], key,
					       (unsigned long long)path.nodes[0]->start);
				btrfs_release_path(&path);
			}
			if (ret) {
				error("cannot rewrite the mended leaf %llu of tree %llu at key %s: %s",
				      (unsigned long long)l->bytenr, (unsigned long long)l->trees[j],
				      key, ret > 0 ? "key not found" : strerror(-ret));
				return ret > 0 ? -ENOENT : ret;
			}
		}
	}
	return 0;
}

void check_salvage_free(struct check_salvage *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->leaves_nr; i++)
		free(s->leaves[i].trees);
	free(s->leaves);
	free(s->refused);
	free(s);
}
