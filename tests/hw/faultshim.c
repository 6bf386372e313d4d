/* LD_PRELOAD fault injector for fake sysfs trees: makes chosen files answer read() / write()
 * with an errno, as a kernel driver's show()/store() does (EBUSY for an inactive cpufreq
 * policy, EINVAL for a refused value, EPERM, EIO).  Plain files cannot do that, and a test
 * that runs the installed `thermogov` script in a subprocess cannot patch Python.
 *
 * $THERMOGOV_FAULTS names a rules file, re-read whenever its mtime changes, one rule a line:
 *     <path suffix> <r|w|rw|u> <errno number>
 * A call on a descriptor whose /proc/self/fd link ends with the suffix fails with that errno.
 * ``u`` (session 33r): unlink() of a path whose resolved name ends with the suffix fails with it
 * (a folder remounted read-only, EROFS, or failing, EIO, under a running daemon).
 * Only descriptors of regular files under $THERMOGOV_FAULTS_ROOT are looked at.  ftruncate()
 * on a file whose writes fail succeeds without truncating: sysfs ignores the size (an `echo v >
 * attr` that the driver refuses leaves the attribute as it was), a plain file would be emptied.
 * A file whose writes fail EROFS is on a read-only mount: statvfs()/fstatvfs() on it report
 * ST_RDONLY, as the kernel does for every file of a file system mounted `ro`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_RULES 64
struct rule { char suffix[512]; int read, write, unlink, err; };
static struct rule rules[MAX_RULES];
static int nrules;
static struct timespec loaded_mtime;
static int loaded;

static void reload(void) {
    const char *path = getenv("THERMOGOV_FAULTS");
    struct stat st;
    if (!path || stat(path, &st) != 0) { nrules = 0; return; }
    if (loaded && st.st_mtim.tv_sec == loaded_mtime.tv_sec && st.st_mtim.tv_nsec == loaded_mtime.tv_nsec)
        return;
    FILE *f = fopen(path, "r");
    if (!f) return;
    nrules = 0;
    char ops[8];
    while (nrules < MAX_RULES &&
           fscanf(f, "%511s %7s %d", rules[nrules].suffix, ops, &rules[nrules].err) == 3) {
        rules[nrules].read = strchr(ops, 'r') != NULL;
        rules[nrules].write = strchr(ops, 'w') != NULL;
        rules[nrules].unlink = strchr(ops, 'u') != NULL;
        nrules++;
    }
    fclose(f);
    loaded_mtime = st.st_mtim;
    loaded = 1;
}

static int fault_at(const char *target, size_t n, int writing);

static int fault_for(int fd, int writing) {
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return 0;
    target[n] = 0;
    return fault_at(target, (size_t)n, writing);
}

static int fault_at(const char *target, size_t n, int writing) {
    const char *root = getenv("THERMOGOV_FAULTS_ROOT");
    if (!root) return 0;
    reload();
    if (nrules == 0) return 0;
    if (strncmp(target, root, strlen(root)) != 0) return 0;
    for (int i = 0; i < nrules; i++) {
        size_t ls = strlen(rules[i].suffix);
        if (n >= ls && strcmp(target + n - ls, rules[i].suffix) == 0 &&
            (writing == 2 ? rules[i].unlink : writing ? rules[i].write : rules[i].read))
            return rules[i].err;
    }
    return 0;
}

#define WRAP(ret, name, writing, params, args)                              \
    ret name params {                                                       \
        static ret(*real) params;                                           \
        if (!real) real = (ret(*) params)dlsym(RTLD_NEXT, #name);           \
        int e = fault_for(fd, writing);                                     \
        if (e) { errno = e; return -1; }                                    \
        return real args;                                                   \
    }

WRAP(ssize_t, read, 0, (int fd, void *buf, size_t count), (fd, buf, count))
WRAP(ssize_t, pread, 0, (int fd, void *buf, size_t count, off_t off), (fd, buf, count, off))
WRAP(ssize_t, pread64, 0, (int fd, void *buf, size_t count, off_t off), (fd, buf, count, off))
WRAP(ssize_t, write, 1, (int fd, const void *buf, size_t count), (fd, buf, count))
WRAP(ssize_t, pwrite, 1, (int fd, const void *buf, size_t count, off_t off), (fd, buf, count, off))
WRAP(ssize_t, pwrite64, 1, (int fd, const void *buf, size_t count, off_t off), (fd, buf, count, off))

#define KEEP(name, type)                                                    \
    int name(int fd, type length) {                                         \
        static int (*real)(int, type);                                      \
        if (!real) real = (int (*)(int, type))dlsym(RTLD_NEXT, #name);      \
        if (fault_for(fd, 1)) return 0;                                     \
        return real(fd, length);                                            \
    }

KEEP(ftruncate, off_t)
KEEP(ftruncate64, off_t)

/* statvfs on a path (resolved, as the descriptor's link is) or a descriptor: ST_RDONLY where the
 * file's writes fail EROFS. */
static void mark_ro(const char *target, struct statvfs *buf) {
    if (fault_at(target, strlen(target), 1) == EROFS) buf->f_flag |= ST_RDONLY;
}

#define VFS_PATH(name, type)                                                \
    int name(const char *path, struct type *buf) {                          \
        static int (*real)(const char *, struct type *);                   \
        if (!real) real = (int (*)(const char *, struct type *))dlsym(RTLD_NEXT, #name); \
        int r = real(path, buf);                                            \
        char target[4096];                                                  \
        if (r == 0 && realpath(path, target)) mark_ro(target, (struct statvfs *)buf); \
        return r;                                                           \
    }

VFS_PATH(statvfs, statvfs)
VFS_PATH(statvfs64, statvfs64)

/* unlink() of a path under the root whose rule has ``u``: that errno, the file left (session 33r). */
int unlink(const char *path) {
    static int (*real)(const char *);
    if (!real) real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    char target[4096];
    if (realpath(path, target)) {
        int e = fault_at(target, strlen(target), 2);
        if (e) { errno = e; return -1; }
    }
    return real(path);
}
