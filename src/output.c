/* output.c — output files for the writers: a regular file is replaced atomically
 * (unnamed temporary file, fsync, link, rename); special files and stdout directly. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Attempts at a fresh temporary name before giving up. */
#define TEMP_TRIES 100
/* Longest part of the target's name copied into the temporary name, so the
 * temporary name stays within NAME_MAX. */
#define TEMP_BASE_MAX 200

/* Names written directly even when they resolve to a regular file: they
 * stand for an already open descriptor (a shell redirection), which a
 * rename would not reach. */
static int names_descriptor(const char *path)
{
	return strcmp(path, "/dev/stdout") == 0 ||
	       strcmp(path, "/dev/stderr") == 0 ||
	       strncmp(path, "/dev/fd/", 8) == 0 ||
	       strncmp(path, "/proc/", 6) == 0;
}

/* Write all of data to fd; 0 or an errno. */
static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The stdio stream over the temporary file: it keeps the first error, so
 * the message says what the disk said, whatever ran after it. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
	usmp__out *o = cookie;
	int err = o->err ? o->err : write_all(o->fd, buf, size);
	if (err) {
		o->err = err;
		errno = err;
		return -1;
	}
	return (ssize_t)size;
}

static int cookie_close(void *cookie)
{
	(void)cookie; /* the descriptor is closed by usmp__out_close */
	return 0;
}

/* Undo a failed open: nothing of it stays behind. */
static int open_fail(usmp__out *o, int err, char **msg)
{
	usmp__set_msg(msg, "%s: cannot open for writing: %s", o->name,
	              strerror(err));
	if (o->f)
		fclose(o->f);
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlinkat(o->dir, o->tmp, 0);
	if (o->dir >= 0)
		close(o->dir);
	free(o->mem);
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
	o->fd = o->dir = -1;
	return -1;
}

/* Standard output and special files: the document is built in memory and
 * written out only when complete. */
static int open_memory(usmp__out *o, char **msg)
{
	o->f = open_memstream(&o->mem, &o->mem_len);
	if (!o->f)
		return open_fail(o, errno, msg);
	return 0;
}

static int open_direct(usmp__out *o, const char *path, char **msg)
{
	o->kind = USMP__OUT_DIRECT;
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY,
	             0666);
	if (o->fd < 0)
		return open_fail(o, errno, msg);
	return open_memory(o, msg);
}

/* ".BASE.usmp-XXXXXX" for the file named `base`, with a fresh suffix
 * (from the time, the process, the output's address, which differs between
 * threads writing at once, and the attempt). */
static char *temp_name(const usmp__out *o, unsigned attempt)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	const char *base = o->base;
	size_t baselen = strlen(base);
	struct timespec ts;
	char suffix[7];

	if (baselen > TEMP_BASE_MAX)
		baselen = TEMP_BASE_MAX;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long x =
		((unsigned long long)ts.tv_nsec * 2654435761u) ^
		((unsigned long long)getpid() << 20) ^
		((unsigned long long)(uintptr_t)o * 40503u) ^
		((unsigned long long)attempt << 40);
	for (int i = 0; i < 6; i++) {
		suffix[i] = digits[x % 36];
		x /= 36;
	}
	suffix[6] = '\0';
	size_t n = 1 + baselen + 6 + 6 + 1;
	char *tmp = malloc(n);
	if (tmp)
		snprintf(tmp, n, ".%.*s.usmp-%s", (int)baselen, base, suffix);
	return tmp;
}

/* Give the temporary file the replaced file's owner and mode (the owner
 * only when the writer may change it). */
static void copy_attributes(int fd, const struct stat *st)
{
	if (st->st_uid != geteuid() || st->st_gid != getegid())
		(void)!fchown(fd, st->st_uid, st->st_gid);
	(void)fchmod(fd, st->st_mode & 07777);
}

/* The name through which an unnamed file is linked into its directory:
 * linkat(fd, "", ..., AT_EMPTY_PATH) would need CAP_DAC_READ_SEARCH. */
static void fd_path(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* An unnamed file in the target's directory (O_TMPFILE): it vanishes with
 * the process until usmp__out_close names it. 0 or an errno; EOPNOTSUPP
 * also when /proc is missing, as the file could not be named then. */
static int open_unnamed(usmp__out *o)
{
	char proc[64];

	o->fd = openat(o->dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (o->fd < 0)
		return errno;
	fd_path(proc, sizeof proc, o->fd);
	if (access(proc, F_OK) != 0) {
		close(o->fd);
		o->fd = -1;
		return EOPNOTSUPP;
	}
	o->unnamed = 1;
	return 0;
}

/* The fallback: a named file ".BASE.usmp-XXXXXX" beside the target. 0 or
 * an errno; on failure no file was created. */
static int open_named(usmp__out *o)
{
	for (unsigned i = 0; i < TEMP_TRIES; i++) {
		o->tmp = temp_name(o, i);
		if (!o->tmp)
			return ENOMEM;
		o->fd = openat(o->dir, o->tmp,
		               O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (o->fd >= 0)
			return 0;
		int err = errno;
		free(o->tmp);
		o->tmp = NULL;
		if (err != EEXIST)
			return err;
	}
	return EEXIST;
}

/* The target's directory, held open (O_PATH) so every later step happens
 * in the same directory. */
static int open_dir(usmp__out *o)
{
	const char *slash = strrchr(o->target, '/');
	char *dir = usmp__strdup(slash ? o->target : ".");

	if (!dir)
		return ENOMEM;
	if (slash)
		dir[slash - o->target + 1] = '\0';
	o->base = slash ? slash + 1 : o->target;
	o->dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int err = o->dir < 0 ? errno : 0;
	free(dir);
	return err;
}

static int open_atomic(usmp__out *o, const char *path, const struct stat *st,
                       char **msg)
{
	static const cookie_io_functions_t io = {
		.write = cookie_write, .close = cookie_close};
	int err;

	o->kind = USMP__OUT_ATOMIC;
	if (st) {
		/* A file the writer may not write is not replaced either. */
		if (access(path, W_OK) != 0)
			return open_fail(o, errno, msg);
		/* Replace what a symbolic link points to, not the link. */
		o->target = realpath(path, NULL);
		if (!o->target)
			return open_fail(o, errno, msg);
	} else {
		o->target = usmp__strdup(path);
		if (!o->target)
			return open_fail(o, ENOMEM, msg);
	}
	if ((err = open_dir(o)) != 0)
		return open_fail(o, err, msg);
	err = open_unnamed(o);
	/* File systems without O_TMPFILE (and kernels before 3.11, which
	 * take it for O_DIRECTORY) get a named temporary file. */
	if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL)
		err = open_named(o);
	if (err)
		return open_fail(o, err, msg);
	if (st)
		copy_attributes(o->fd, st);
	o->f = fopencookie(o, "w", io);
	if (!o->f)
		return open_fail(o, errno, msg);
	setvbuf(o->f, NULL, _IOFBF, 65536);
	return 0;
}

int usmp__out_open(usmp__out *o, const char *path, char **msg)
{
	struct stat st, lst;
	size_t n = strlen(path);

	memset(o, 0, sizeof *o);
	o->fd = o->dir = -1;
	o->name = path;
	if (strcmp(path, "-") == 0) {
		o->kind = USMP__OUT_STDOUT;
		o->name = "<stdout>";
		return open_memory(o, msg);
	}
	if (n && path[n - 1] == '/')
		return open_fail(o, EISDIR, msg);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return open_fail(o, EISDIR, msg);
		if (!S_ISREG(st.st_mode) || names_descriptor(path))
			return open_direct(o, path, msg);
		return open_atomic(o, path, &st, msg);
	}
	if (errno != ENOENT)
		return open_fail(o, errno, msg);
	/* A dangling symbolic link is written through, as open() would. */
	if (lstat(path, &lst) == 0 || names_descriptor(path))
		return open_direct(o, path, msg);
	return open_atomic(o, path, NULL, msg);
}

/* Give the unnamed file a temporary name and rename it over the target.
 * The signals that end a process by default are blocked for these two
 * calls only: one arriving meanwhile is delivered once the file is in
 * place, so no temporary name is left (only SIGKILL or a crash between the
 * two calls could leave one). 0 or an errno; on failure the target is as
 * it was and the temporary name is gone. */
static int publish_unnamed(usmp__out *o)
{
	static const int held[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	sigset_t block, old;
	char proc[64];

	sigemptyset(&block);
	for (size_t i = 0; i < sizeof held / sizeof *held; i++)
		sigaddset(&block, held[i]);
	fd_path(proc, sizeof proc, o->fd);
	for (unsigned i = 0; i < TEMP_TRIES; i++) {
		o->tmp = temp_name(o, i);
		if (!o->tmp)
			return ENOMEM;
		pthread_sigmask(SIG_BLOCK, &block, &old);
		int linked = linkat(AT_FDCWD, proc, o->dir, o->tmp,
		                    AT_SYMLINK_FOLLOW) == 0;
		int err = linked ? 0 : errno;
		if (linked && renameat(o->dir, o->tmp, o->dir, o->base) != 0) {
			err = errno;
			unlinkat(o->dir, o->tmp, 0);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		free(o->tmp);
		o->tmp = NULL;
		if (linked || err != EEXIST)
			return err;
	}
	return EEXIST;
}

/* Make the rename itself durable (best effort: not every file system lets
 * a directory be synced). */
static void sync_dir(int dir)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* Finish an atomic output: 0 or an errno, *what saying which step failed.
 * On failure nothing of the temporary file stays. */
static int close_atomic(usmp__out *o, int ok, const char **what)
{
	int err = 0;

	/* Durable before it is visible: a crash after the rename never
	 * shows a file with its data still unwritten. */
	if (ok && fsync(o->fd) != 0 && errno != EINVAL && errno != EROFS)
		err = errno;
	if (o->unnamed) {
		/* Named while still open: /proc/self/fd/N is its only path. */
		if (ok && !err && (err = publish_unnamed(o)) != 0)
			*what = "cannot replace the file";
		(void)close(o->fd); /* synced already; named or dropped */
	} else {
		if (close(o->fd) != 0 && ok && !err && errno != EINTR)
			err = errno;
		if (ok && !err && renameat(o->dir, o->tmp, o->dir, o->base) != 0) {
			err = errno;
			*what = "cannot replace the file";
		}
		if (!ok || err)
			unlinkat(o->dir, o->tmp, 0);
	}
	if (ok && !err)
		sync_dir(o->dir);
	close(o->dir);
	o->dir = -1;
	return err;
}

int usmp__out_close(usmp__out *o, int ok, char **msg)
{
	const char *what = "write failed";
	int err = 0;

	if (fflush(o->f) != 0 || ferror(o->f))
		err = o->err ? o->err : errno ? errno : EIO;
	if (fclose(o->f) != 0 && !err)
		err = o->err ? o->err : errno ? errno : EIO;
	o->f = NULL;
	switch (o->kind) {
	case USMP__OUT_STDOUT:
		if (ok && !err && (fwrite(o->mem, 1, o->mem_len, stdout) !=
		                           o->mem_len || fflush(stdout) != 0))
			err = errno ? errno : EIO;
		break;
	case USMP__OUT_DIRECT:
		if (ok && !err)
			err = write_all(o->fd, o->mem, o->mem_len);
		if (close(o->fd) != 0 && ok && !err && errno != EINTR)
			err = errno;
		break;
	case USMP__OUT_ATOMIC: {
		int e = close_atomic(o, ok && !err, &what);
		if (!err)
			err = e;
		break;
	}
	}
	o->fd = -1;
	free(o->mem);
	free(o->tmp);
	free(o->target);
	o->mem = o->tmp = o->target = NULL;
	if (err) {
		usmp__set_msg(msg, "%s: %s: %s", o->name, what, strerror(err));
		return USMP_ERR_IO;
	}
	return USMP_OK;
}
