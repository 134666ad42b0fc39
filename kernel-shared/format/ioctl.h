/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The btrfs ioctl ABI we drive a mounted filesystem with: balance (start,
 * control, progress), filesystem / device / space information and tree
 * search.  Written from the documented uapi (include/uapi/linux/btrfs.h);
 * field names are the uapi's, so code reads the same as the kernel's
 * documentation.  These are host-endian structures (the kernel fills them in
 * CPU order), unlike the on-disk items of format.h.  Sizes are part of the
 * ABI: each struct is checked at the bottom of this file.
 */
#ifndef BTRFS_KIT_IOCTL_H
#define BTRFS_KIT_IOCTL_H

#include <sys/ioctl.h>
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"   /* BTRFS_BALANCE_* and BTRFS_BALANCE_ARGS_* flags */

#define BTRFS_IOCTL_MAGIC 0x94
#define BTRFS_IOCTL_FSID_SIZE 16
#define BTRFS_IOCTL_UUID_SIZE 16
#define BTRFS_PATH_NAME_MAX 4087
#define BTRFS_DEVICE_PATH_NAME_MAX 1024

/* Old-style argument: BTRFS_IOC_BALANCE (v1) takes it and ignores name. */
struct btrfs_ioctl_vol_args {
	__s64 fd;
	char name[BTRFS_PATH_NAME_MAX + 1];
};

/*
 * Filters for one chunk type (data, metadata or system).  Packed because it
 * is the same layout as the on-disk btrfs_disk_balance_args of the balance
 * item.  136 bytes.
 */
struct btrfs_balance_args {
	__u64 profiles;                 /* BTRFS_BALANCE_ARGS_PROFILES: extended profile bits */
	union {
		__u64 usage;            /* BTRFS_BALANCE_ARGS_USAGE: percent, 0..100 */
		struct {
			__u32 usage_min;        /* BTRFS_BALANCE_ARGS_USAGE_RANGE */
			__u32 usage_max;
		};
	};
	__u64 devid;                    /* BTRFS_BALANCE_ARGS_DEVID */
	__u64 pstart;                   /* BTRFS_BALANCE_ARGS_DRANGE: [pstart, pend) on devid */
	__u64 pend;
	__u64 vstart;                   /* BTRFS_BALANCE_ARGS_VRANGE: [vstart, vend) logical */
	__u64 vend;
	__u64 target;                   /* BTRFS_BALANCE_ARGS_CONVERT: extended profile */
	__u64 flags;                    /* BTRFS_BALANCE_ARGS_* */
	union {
		__u64 limit;            /* BTRFS_BALANCE_ARGS_LIMIT: chunks to process */
		struct {
			__u32 limit_min;        /* BTRFS_BALANCE_ARGS_LIMIT_RANGE */
			__u32 limit_max;
		};
	};
	__u32 stripes_min;              /* BTRFS_BALANCE_ARGS_STRIPES_RANGE */
	__u32 stripes_max;
	__u64 unused[6];
} __attribute__((__packed__));

/* Progress counters, filled by the kernel. */
struct btrfs_balance_progress {
	__u64 expected;                 /* chunks estimated to be relocated */
	__u64 considered;               /* chunks looked at so far */
	__u64 completed;                /* chunks relocated so far */
};

/* btrfs_ioctl_balance_args.state */
#define BTRFS_BALANCE_STATE_RUNNING (1ULL << 0)
#define BTRFS_BALANCE_STATE_PAUSE_REQ (1ULL << 1)
#define BTRFS_BALANCE_STATE_CANCEL_REQ (1ULL << 2)

/* BTRFS_IOC_BALANCE_CTL argument */
#define BTRFS_BALANCE_CTL_PAUSE 1
#define BTRFS_BALANCE_CTL_CANCEL 2

/* The balance request and its progress: 1024 bytes. */
struct btrfs_ioctl_balance_args {
	__u64 flags;                    /* in/out: BTRFS_BALANCE_* */
	__u64 state;                    /* out: BTRFS_BALANCE_STATE_* */
	struct btrfs_balance_args data; /* in/out */
	struct btrfs_balance_args meta; /* in/out */
	struct btrfs_balance_args sys;  /* in/out */
	struct btrfs_balance_progress stat;  /* out */
	__u64 unused[72];               /* pad to 1k */
};

/* BTRFS_IOC_FS_INFO: 1024 bytes. */
#define BTRFS_FS_INFO_FLAG_CSUM_INFO (1 << 0)
#define BTRFS_FS_INFO_FLAG_GENERATION (1 << 1)
#define BTRFS_FS_INFO_FLAG_METADATA_UUID (1 << 2)
struct btrfs_ioctl_fs_info_args {
	__u64 max_id;                   /* out: highest devid */
	__u64 num_devices;              /* out */
	__u8 fsid[BTRFS_IOCTL_FSID_SIZE];   /* out */
	__u32 nodesize;                 /* out */
	__u32 sectorsize;               /* out */
	__u32 clone_alignment;          /* out */
	__u16 csum_type;                /* out, with BTRFS_FS_INFO_FLAG_CSUM_INFO */
	__u16 csum_size;                /* out, with BTRFS_FS_INFO_FLAG_CSUM_INFO */
	__u64 flags;                    /* in/out: BTRFS_FS_INFO_FLAG_* */
	__u64 generation;               /* out, with BTRFS_FS_INFO_FLAG_GENERATION */
	__u8 metadata_uuid[BTRFS_IOCTL_FSID_SIZE];  /* out, with ..._METADATA_UUID */
	__u8 reserved[944];             /* pad to 1k */
};

/* BTRFS_IOC_DEV_INFO: one device by devid (or uuid); 4096 bytes. */
struct btrfs_ioctl_dev_info_args {
	__u64 devid;                    /* in/out */
	__u8 uuid[BTRFS_IOCTL_UUID_SIZE];   /* in/out */
	__u64 bytes_used;               /* out: bytes allocated to dev extents */
	__u64 total_bytes;              /* out: size of the device in the filesystem */
	__u8 fsid[BTRFS_IOCTL_UUID_SIZE];   /* out: filled by newer kernels (seeding) */
	__u64 unused[377];              /* pad to 4k */
	__u8 path[BTRFS_DEVICE_PATH_NAME_MAX];  /* out */
};

/* BTRFS_IOC_SPACE_INFO: space_slots entries follow the header. */
struct btrfs_ioctl_space_info {
	__u64 flags;                    /* BTRFS_BLOCK_GROUP_* (type | profile) */
	__u64 total_bytes;
	__u64 used_bytes;
};
struct btrfs_ioctl_space_args {
	__u64 space_slots;              /* in: room in spaces[]; 0 asks for the count */
	__u64 total_spaces;             /* out */
	struct btrfs_ioctl_space_info spaces[];
};

/*
 * BTRFS_IOC_TREE_SEARCH(_V2): items of tree tree_id whose 136-bit key
 * (objectid, type, offset) lies in [min, max], and whose block's
 * transid is in [min_transid, max_transid].
 */
struct btrfs_ioctl_search_key {
	__u64 tree_id;                  /* in: 0 means the subvolume of the fd */
	__u64 min_objectid;             /* in */
	__u64 max_objectid;             /* in */
	__u64 min_offset;               /* in */
	__u64 max_offset;               /* in */
	__u64 min_transid;              /* in */
	__u64 max_transid;              /* in */
	__u32 min_type;                 /* in */
	__u32 max_type;                 /* in */
	__u32 nr_items;                 /* in: most items wanted; out: items returned */
	__u32 unused;
	__u64 unused1;
	__u64 unused2;
	__u64 unused3;
	__u64 unused4;
};

/* Precedes each item in the result buffer; the item's len bytes follow. */
struct btrfs_ioctl_search_header {
	__u64 transid;
	__u64 objectid;
	__u64 offset;
	__u32 type;
	__u32 len;
};

#define BTRFS_SEARCH_ARGS_BUFSIZE (4096 - sizeof(struct btrfs_ioctl_search_key))
struct btrfs_ioctl_search_args {
	struct btrfs_ioctl_search_key key;  /* in/out */
	char buf[BTRFS_SEARCH_ARGS_BUFSIZE];    /* out */
};

struct btrfs_ioctl_search_args_v2 {
	struct btrfs_ioctl_search_key key;  /* in/out */
	__u64 buf_size;                 /* in: size of buf; out on EOVERFLOW: size needed */
	__u8 buf[];                     /* out */
};

#define BTRFS_IOC_BALANCE _IOW(BTRFS_IOCTL_MAGIC, 12, struct btrfs_ioctl_vol_args)
#define BTRFS_IOC_TREE_SEARCH _IOWR(BTRFS_IOCTL_MAGIC, 17, struct btrfs_ioctl_search_args)
#define BTRFS_IOC_TREE_SEARCH_V2 _IOWR(BTRFS_IOCTL_MAGIC, 17, struct btrfs_ioctl_search_args_v2)
#define BTRFS_IOC_SPACE_INFO _IOWR(BTRFS_IOCTL_MAGIC, 20, struct btrfs_ioctl_space_args)
#define BTRFS_IOC_DEV_INFO _IOWR(BTRFS_IOCTL_MAGIC, 30, struct btrfs_ioctl_dev_info_args)
#define BTRFS_IOC_FS_INFO _IOR(BTRFS_IOCTL_MAGIC, 31, struct btrfs_ioctl_fs_info_args)
#define BTRFS_IOC_BALANCE_V2 _IOWR(BTRFS_IOCTL_MAGIC, 32, struct btrfs_ioctl_balance_args)
#define BTRFS_IOC_BALANCE_CTL _IOW(BTRFS_IOCTL_MAGIC, 33, int)
#define BTRFS_IOC_BALANCE_PROGRESS _IOR(BTRFS_IOCTL_MAGIC, 34, struct btrfs_ioctl_balance_args)

/* statfs(2) f_type of a btrfs mount */
#define BTRFS_SUPER_MAGIC_STATFS 0x9123683EL

_Static_assert(sizeof(struct btrfs_ioctl_vol_args) == 4096, "btrfs_ioctl_vol_args");
_Static_assert(sizeof(struct btrfs_balance_args) == 136, "btrfs_balance_args");
_Static_assert(sizeof(struct btrfs_balance_progress) == 24, "btrfs_balance_progress");
_Static_assert(sizeof(struct btrfs_ioctl_balance_args) == 1024, "btrfs_ioctl_balance_args");
_Static_assert(sizeof(struct btrfs_ioctl_fs_info_args) == 1024, "btrfs_ioctl_fs_info_args");
_Static_assert(sizeof(struct btrfs_ioctl_dev_info_args) == 4096, "btrfs_ioctl_dev_info_args");
_Static_assert(sizeof(struct btrfs_ioctl_space_info) == 24, "btrfs_ioctl_space_info");
_Static_assert(sizeof(struct btrfs_ioctl_space_args) == 16, "btrfs_ioctl_space_args");
_Static_assert(sizeof(struct btrfs_ioctl_search_key) == 104, "btrfs_ioctl_search_key");
_Static_assert(sizeof(struct btrfs_ioctl_search_header) == 32, "btrfs_ioctl_search_header");
_Static_assert(sizeof(struct btrfs_ioctl_search_args) == 4096, "btrfs_ioctl_search_args");
_Static_assert(sizeof(struct btrfs_ioctl_search_args_v2) == 112, "btrfs_ioctl_search_args_v2");
_Static_assert(offsetof(struct btrfs_balance_args, target) == 56, "balance_args.target");
_Static_assert(offsetof(struct btrfs_balance_args, flags) == 64, "balance_args.flags");
_Static_assert(offsetof(struct btrfs_balance_args, stripes_min) == 80, "balance_args.stripes_min");
_Static_assert(offsetof(struct btrfs_ioctl_balance_args, stat) == 424, "balance_args.stat");
_Static_assert(offsetof(struct btrfs_ioctl_dev_info_args, path) == 3072, "dev_info_args.path");
_Static_assert(offsetof(struct btrfs_ioctl_fs_info_args, flags) == 48, "fs_info_args.flags");

#endif
