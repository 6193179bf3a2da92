#ifndef LIVETABLE_CFILESYSTEM_SHIM_H
#define LIVETABLE_CFILESYSTEM_SHIM_H

// Swift's Glibc module has statvfs, whose f_fsid is no file system type,
// but not Linux's statfs, whose f_type is: ReactiveGRDB tells a network or
// FUSE file system by it.
#include <sys/vfs.h>

// The f_type of the file system of `path`, its width the same on every
// architecture. Returns 0 on success, -1 with errno set on failure.
static inline int lt_file_system_type(const char *path, unsigned int *type) {
    struct statfs info;
    if (statfs(path, &info) != 0) {
        return -1;
    }
    *type = (unsigned int)info.f_type;
    return 0;
}

#endif
