// An LD_PRELOAD shim that makes every fsync and fdatasync SLOW_FSYNC_MS
// milliseconds slower (default 50): a disk whose cache flush is slow (a
// network volume), to see what a build's syncs cost on one. Used in
// docs/performance-log.md ("cluster builds' fixed costs").
//   cc -O2 -shared -fPIC -o /tmp/slow_fsync.so bench/slow_disk/slow_fsync.c -ldl
//   LD_PRELOAD=/tmp/slow_fsync.so SLOW_FSYNC_MS=50 build/invidx-run ...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static useconds_t extra_wait(void) {
    const char* value = getenv("SLOW_FSYNC_MS");
    return (useconds_t)(value ? atoi(value) : 50) * 1000;
}

int fsync(int fd) {
    static int (*real)(int) = 0;
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    usleep(extra_wait());
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int) = 0;
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    usleep(extra_wait());
    return real(fd);
}
