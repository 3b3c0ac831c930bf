/* output.c — output files for the writers: a regular file is replaced atomically
 * (temporary file, fsync, rename); special files and stdout are written directly. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
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

static usmp_temp_hook temp_hook;
static void *temp_hook_ctx;

void usmp_set_temp_hook(usmp_temp_hook hook, void *ctx)
{
	temp_hook = hook;
	temp_hook_ctx = ctx;
}

static void tell_hook(const char *temp, int active)
{
	usmp_temp_hook hook = temp_hook;
	if (hook)
		hook(temp, active, temp_hook_ctx);
}

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
	if (o->tmp) {
		unlink(o->tmp);
		tell_hook(o->tmp, 0);
	}
	free(o->mem);
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
	o->fd = -1;
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

/* "DIR/.BASE.usmp-XXXXXX" next to `target`, with a fresh suffix. */
static char *temp_name(const char *target, unsigned attempt)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned long counter;
	const char *slash = strrchr(target, '/');
	size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
	size_t baselen = strlen(target + dirlen);
	struct timespec ts;
	char suffix[7];

	if (baselen > TEMP_BASE_MAX)
		baselen = TEMP_BASE_MAX;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long x =
		((unsigned long long)ts.tv_nsec * 2654435761u) ^
		((unsigned long long)getpid() << 20) ^
		(__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 40503u) ^
		((unsigned long long)attempt << 40);
	for (int i = 0; i < 6; i++) {
		suffix[i] = digits[x % 36];
		x /= 36;
	}
	suffix[6] = '\0';
	size_t n = dirlen + 1 + baselen + 6 + 6 + 1;
	char *tmp = malloc(n);
	if (tmp)
		snprintf(tmp, n, "%.*s.%.*s.usmp-%s", (int)dirlen, target,
		         (int)baselen, target + dirlen, suffix);
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

static int open_atomic(usmp__out *o, const char *path, const struct stat *st,
                       char **msg)
{
	static const cookie_io_functions_t io = {
		.write = cookie_write, .close = cookie_close};

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
	for (unsigned i = 0; i < TEMP_TRIES && o->fd < 0; i++) {
		o->tmp = temp_name(o->target, i);
		if (!o->tmp)
			return open_fail(o, ENOMEM, msg);
		/* The host hears of the name before the file exists, so no
		 * moment passes with a file it does not know of. */
		tell_hook(o->tmp, 1);
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (o->fd >= 0)
			break;
		int err = errno;
		tell_hook(o->tmp, 0);
		free(o->tmp);
		o->tmp = NULL;
		if (err != EEXIST)
			return open_fail(o, err, msg);
	}
	if (o->fd < 0)
		return open_fail(o, EEXIST, msg);
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
	o->fd = -1;
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

/* Make the rename itself durable (best effort: not every file system lets
 * a directory be synced). */
static void sync_dir(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir = usmp__strdup(slash ? target : ".");
	if (!dir)
		return;
	if (slash)
		dir[slash - target + 1] = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
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
	case USMP__OUT_ATOMIC:
		/* Durable before it is visible: a crash after the rename
		 * never shows a file with its data still unwritten. */
		if (ok && !err && fsync(o->fd) != 0 && errno != EINVAL &&
		    errno != EROFS)
			err = errno;
		if (close(o->fd) != 0 && ok && !err && errno != EINTR)
			err = errno;
		if (ok && !err && rename(o->tmp, o->target) != 0) {
			err = errno;
			what = "cannot replace the file";
		}
		if (!ok || err)
			unlink(o->tmp);
		tell_hook(o->tmp, 0);
		if (ok && !err)
			sync_dir(o->target);
		break;
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
