/* stop_at.c — an LD_PRELOAD shim for tests/test_output.c: usmp stops itself
 * (SIGSTOP) at a chosen step of writing an output file, or lacks O_TMPFILE.
 *   USMP_TEST_STOP_AT=synced   after fsync of an unnamed (O_TMPFILE) file:
 *                              complete, before it is given a name
 *   USMP_TEST_STOP_AT=link     just before linkat names an unnamed file
 *   USMP_TEST_STOP_AT=rename   just before renaming a ".NAME.usmp-XXXXXX" file
 *   USMP_TEST_NO_TMPFILE=1     openat(..., O_TMPFILE) fails with EOPNOTSUPP,
 *                              as on a file system without it */
/* Both openat and openat64 are defined here, whichever the library calls. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int stop_at(const char *step)
{
	const char *want = getenv("USMP_TEST_STOP_AT");
	return want && strcmp(want, step) == 0;
}

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

int fsync(int fd)
{
	int (*real)(int);
	struct stat st;
	*(void **)&real = next("fsync");
	int rc = real ? real(fd) : -1;
	if (stop_at("synced") && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_nlink == 0)
		raise(SIGSTOP);
	return rc;
}

int linkat(int olddir, const char *old, int newdir, const char *new, int flags)
{
	int (*real)(int, const char *, int, const char *, int);
	*(void **)&real = next("linkat");
	if (stop_at("link") && strncmp(old, "/proc/self/fd/", 14) == 0)
		raise(SIGSTOP);
	return real ? real(olddir, old, newdir, new, flags) : -1;
}

int renameat(int olddir, const char *old, int newdir, const char *new)
{
	int (*real)(int, const char *, int, const char *);
	*(void **)&real = next("renameat");
	if (stop_at("rename") && strstr(old, ".usmp-"))
		raise(SIGSTOP);
	return real ? real(olddir, old, newdir, new) : -1;
}

static int open_at(const char *name, int dir, const char *path, int flags,
                   mode_t mode)
{
	int (*real)(int, const char *, int, ...);
	const char *deny = getenv("USMP_TEST_NO_TMPFILE");
	*(void **)&real = next(name);
	if ((flags & O_TMPFILE) == O_TMPFILE && deny && strcmp(deny, "1") == 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return real ? real(dir, path, flags, mode) : -1;
}

int openat(int dir, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return open_at("openat", dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return open_at("openat64", dir, path, flags, mode);
}
