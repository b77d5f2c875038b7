/* Fault injection at the level of the C library, for tests/test_faults.py: loaded with
 * LD_PRELOAD, it stands between the process (Python, HDF5, ISA-L alike) and the calls that
 * change files: write, pwrite, writev, pwritev, ftruncate, fallocate, fsync, fdatasync,
 * rename, renameat, mkdir and open with O_CREAT.  Such a call on a path under the directory
 * $PUZZLEDB_FAULTS_UNDER is counted, and the call numbered faults_fail_at fails with
 * faults_errno (and every later one too when faults_persist is set) without reaching the
 * system.  The test reads and sets these globals through ctypes.CDLL(None), so that one
 * process runs a build once for every call that can fail.
 *
 * Built by the test with `gcc -shared -fPIC -O2 inject.c -o inject.so -ldl`. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

long faults_calls;          /* calls counted so far */
long faults_fail_at;        /* the call that fails (1-based); 0: none */
int faults_errno = EIO;     /* the error it fails with */
int faults_persist;         /* 1: every counted call after it fails as well (a full disk) */
long faults_injected;       /* calls made to fail */
char faults_under[PATH_MAX];          /* count the calls on paths under this directory */
char faults_failed[2 * PATH_MAX + 32]; /* "<call> <path>" of the first call made to fail */

__attribute__((constructor)) static void faults_start(void)
{
    const char *under = getenv("PUZZLEDB_FAULTS_UNDER");
    if (under != NULL)
        snprintf(faults_under, sizeof faults_under, "%s", under);
}

#define REAL(name) \
    static __typeof__(name) *real_##name; \
    if (real_##name == NULL) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static int is_under(const char *path)
{
    size_t n = strlen(faults_under);
    return n > 0 && strncmp(path, faults_under, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* The path of `name` relative to the directory fd `at` (AT_FDCWD: the working
 * directory), written into `out`; whether it is under faults_under. */
static int path_under(int at, const char *name, char *out, size_t size)
{
    if (faults_under[0] == 0 || name == NULL)
        return 0;
    if (name[0] == '/') {
        snprintf(out, size, "%s", name);
    } else {
        char base[PATH_MAX];
        if (at == AT_FDCWD) {
            if (getcwd(base, sizeof base) == NULL)
                return 0;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", at);
            ssize_t got = readlink(link, base, sizeof base - 1);
            if (got < 0)
                return 0;
            base[got] = 0;
        }
        snprintf(out, size, "%s/%s", base, name);
    }
    return is_under(out);
}

static int fd_under(int fd, char *out, size_t size)
{
    if (faults_under[0] == 0)
        return 0;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t got = readlink(link, out, size - 1);
    if (got < 0)
        return 0;
    out[got] = 0;
    return is_under(out);
}

/* Count a call on `path`; 1 if it is to fail (errno is then set). */
static int fail(const char *call, const char *path)
{
    long n = __atomic_add_fetch(&faults_calls, 1, __ATOMIC_SEQ_CST);
    long at = __atomic_load_n(&faults_fail_at, __ATOMIC_SEQ_CST);
    if (at <= 0 || n < at || (n > at && !faults_persist))
        return 0;
    if (__atomic_add_fetch(&faults_injected, 1, __ATOMIC_SEQ_CST) == 1)
        snprintf(faults_failed, sizeof faults_failed, "%s %s", call, path);
    errno = faults_errno;
    return 1;
}

static int fd_fails(const char *call, int fd)
{
    char path[2 * PATH_MAX];
    return fd_under(fd, path, sizeof path) && fail(call, path);
}

static int path_fails(const char *call, int at, const char *name)
{
    char path[2 * PATH_MAX];
    return path_under(at, name, path, sizeof path) && fail(call, path);
}

/* -- writes ------------------------------------------------------------------------------ */
#define WRITE_CALL(ret, name, params, args) \
    ret name params \
    { \
        REAL(name); \
        if (fd_fails(#name, fd)) \
            return -1; \
        return real_##name args; \
    }

WRITE_CALL(ssize_t, write, (int fd, const void *buf, size_t n), (fd, buf, n))
WRITE_CALL(ssize_t, pwrite, (int fd, const void *buf, size_t n, off_t at), (fd, buf, n, at))
WRITE_CALL(ssize_t, pwrite64, (int fd, const void *buf, size_t n, off64_t at), (fd, buf, n, at))
WRITE_CALL(ssize_t, writev, (int fd, const struct iovec *v, int k), (fd, v, k))
WRITE_CALL(ssize_t, pwritev, (int fd, const struct iovec *v, int k, off_t at), (fd, v, k, at))
WRITE_CALL(ssize_t, pwritev64, (int fd, const struct iovec *v, int k, off64_t at),
           (fd, v, k, at))
WRITE_CALL(ssize_t, pwritev2, (int fd, const struct iovec *v, int k, off_t at, int flags),
           (fd, v, k, at, flags))
WRITE_CALL(int, ftruncate, (int fd, off_t size), (fd, size))
WRITE_CALL(int, ftruncate64, (int fd, off64_t size), (fd, size))
WRITE_CALL(int, fallocate, (int fd, int mode, off_t at, off_t n), (fd, mode, at, n))
WRITE_CALL(int, fsync, (int fd), (fd))
WRITE_CALL(int, fdatasync, (int fd), (fd))

/* posix_fallocate returns the error instead of setting errno */
#define FALLOCATE_CALL(name, off) \
    int name(int fd, off at, off n) \
    { \
        REAL(name); \
        if (fd_fails(#name, fd)) \
            return errno; \
        return real_##name(fd, at, n); \
    }

FALLOCATE_CALL(posix_fallocate, off_t)
FALLOCATE_CALL(posix_fallocate64, off64_t)

/* -- names ------------------------------------------------------------------------------- */
/* a rename is one call, counted once: under the directory if either name is */
static int rename_fails(const char *call, int olddir, const char *old, int newdir,
                        const char *new)
{
    char path[2 * PATH_MAX];
    return (path_under(newdir, new, path, sizeof path)
            || path_under(olddir, old, path, sizeof path)) && fail(call, path);
}

int rename(const char *old, const char *new)
{
    REAL(rename);
    if (rename_fails("rename", AT_FDCWD, old, AT_FDCWD, new))
        return -1;
    return real_rename(old, new);
}

int renameat(int olddir, const char *old, int newdir, const char *new)
{
    REAL(renameat);
    if (rename_fails("renameat", olddir, old, newdir, new))
        return -1;
    return real_renameat(olddir, old, newdir, new);
}

int renameat2(int olddir, const char *old, int newdir, const char *new, unsigned flags)
{
    REAL(renameat2);
    if (rename_fails("renameat2", olddir, old, newdir, new))
        return -1;
    return real_renameat2(olddir, old, newdir, new, flags);
}

/* A directory that exists already is EEXIST, and one whose parent does not exist ENOENT,
 * whatever the disk: only the creation of a new directory in an existing one can fail. */
static int new_directory_fails(const char *call, int at, const char *name)
{
    char path[2 * PATH_MAX];
    struct stat st;
    if (!path_under(at, name, path, sizeof path) || stat(path, &st) == 0)
        return 0;
    char *slash = strrchr(path, '/');
    if (slash == NULL || slash == path)
        return 0;
    *slash = 0;
    int parent = stat(path, &st) == 0;
    *slash = '/';
    return parent && fail(call, path);
}

int mkdir(const char *name, mode_t mode)
{
    REAL(mkdir);
    if (new_directory_fails("mkdir", AT_FDCWD, name))
        return -1;
    return real_mkdir(name, mode);
}

int mkdirat(int at, const char *name, mode_t mode)
{
    REAL(mkdirat);
    if (new_directory_fails("mkdirat", at, name))
        return -1;
    return real_mkdirat(at, name, mode);
}

/* -- creating files ------------------------------------------------------------------------ */
#define OPEN_MODE(flags, mode) \
    mode_t mode = 0; \
    if ((flags) & (O_CREAT | __O_TMPFILE)) { \
        va_list rest; \
        va_start(rest, flags); \
        mode = va_arg(rest, mode_t); \
        va_end(rest); \
    }

#define OPEN_CALL(name) \
    int name(const char *path, int flags, ...) \
    { \
        REAL(name); \
        OPEN_MODE(flags, mode) \
        if ((flags & O_CREAT) && path_fails(#name, AT_FDCWD, path)) \
            return -1; \
        return real_##name(path, flags, mode); \
    }

#define OPENAT_CALL(name) \
    int name(int at, const char *path, int flags, ...) \
    { \
        REAL(name); \
        OPEN_MODE(flags, mode) \
        if ((flags & O_CREAT) && path_fails(#name, at, path)) \
            return -1; \
        return real_##name(at, path, flags, mode); \
    }

OPEN_CALL(open)
OPEN_CALL(open64)
OPENAT_CALL(openat)
OPENAT_CALL(openat64)

#define CREAT_CALL(name) \
    int name(const char *path, mode_t mode) \
    { \
        REAL(name); \
        if (path_fails(#name, AT_FDCWD, path)) \
            return -1; \
        return real_##name(path, mode); \
    }

CREAT_CALL(creat)
CREAT_CALL(creat64)
