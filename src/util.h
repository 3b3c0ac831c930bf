/* util.h — base of every private header: build flag, messages, growable arrays,
 * clock, 128-bit totals, binary search, keyed hashes, string map, children. */
#ifndef USMP_UTIL_H
#define USMP_UTIL_H

/* Public headers see the library itself being built (symbol visibility). */
#define USMP_BUILDING_LIBRARY 1
#include <usmp/plugin.h>
#include <usmp/usmp.h>

#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>

/* Marks a function whose arguments a and b are a printf format and its values. */
#define USMP__PRINTF(a, b) __attribute__((format(printf, a, b)))
/* Marks an argument as unused on purpose. */
#define USMP__UNUSED(x) ((void)(x))

/* ---- util.c: messages, growable arrays, the clock ------------------------ */

/* Replace *slot (heap string or NULL) with a formatted message. Never fails
 * visibly: on allocation failure *slot becomes a static "out of memory". */
void usmp__set_msg(char **slot, const char *fmt, ...) USMP__PRINTF(2, 3);
/* usmp__set_msg with a va_list. */
void usmp__vset_msg(char **slot, const char *fmt, va_list ap);
/* The edit distance of `cand` from `name` when it is close enough to
 * suggest for a misspelt name (a few edits, more for longer names), else
 * SIZE_MAX (also for equal names). Defined in missing_algorithm.c; also
 * suggests known keys of a JSON file (io_json.c). */
size_t usmp__name_distance(const char *name, const char *cand);
/* The Levenshtein distance of a[0..n) and b[0..m) (no NUL needed), ASCII
 * case ignored when fold is set; SIZE_MAX when n or m is over
 * USMP__EDIT_MAX. Defined in missing_algorithm.c; also finds the CSV
 * column a header cell misspells (io_csv.c). */
#define USMP__EDIT_MAX 128u
size_t usmp__edit_distance(const char *a, size_t n, const char *b, size_t m,
                           bool fold);
/* Free *slot (a usmp__set_msg message, or NULL) and set it to NULL. */
void usmp__free_msg(char **slot);
/* strdup that returns NULL on failure. */
char *usmp__strdup(const char *s);
/* Grow *arr (element size elem) so it holds at least need elements; *cap is
 * updated. Returns 0 or USMP_ERR_NOMEM (on overflow too). */
int usmp__grow(void **arr, size_t *cap, size_t need, size_t elem);
/* Monotonic clock in seconds. */
double usmp__now(void);
/* CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID; 0 when
 * the system cannot tell): with usmp__now, the load factor (budget.h). */
double usmp__cpu_now(void);

/* "s" for a count other than 1, for messages: "%llu byte%s", n, usmp__s(n). */
static inline const char *usmp__s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

/* ---- msg_format.c: formatting a message ----------------------------------- */

/* Names in messages: a name quoted in a message's format ("%s" between
 * two '"') of more than USMP__NAME_SHOWN_MAX bytes keeps its first
 * USMP__NAME_KEPT bytes (fewer rather than split a UTF-8 sequence), then
 * "…(N bytes)" (N: the whole name), whatever the name holds ('"' too).
 * Data outputs (plan files) keep names whole. */
#define USMP__NAME_SHOWN_MAX 120u
#define USMP__NAME_KEPT 60u
/* How many of a name's `len` bytes a shortened quote keeps. */
size_t usmp__name_cut(const char *name, size_t len);
/* The message fmt formats (a new heap string), each quoted name shortened
 * as above; usmp__set_msg formats with it. A conversion it does not know
 * (%n, glibc's %m) makes vsnprintf format the whole message, names whole.
 * NULL when out of memory. */
char *usmp__vformat_msg(const char *fmt, va_list ap);
char *usmp__format_msg(const char *fmt, ...) USMP__PRINTF(1, 2);

/* ---- 128-bit byte totals (inline) ---------------------------------------- */

/* Byte totals kept exactly in 128 bits (two words): sums of many sizes up
 * to 2^64-1 never wrap; usmp__wide_min reads one saturated. */
typedef struct usmp__wide {
	uint64_t hi, lo;
} usmp__wide;

/* w += x. */
static inline void usmp__wide_add(usmp__wide *w, uint64_t x)
{
	w->lo += x;
	if (w->lo < x)
		w->hi++;
}

/* w -= x (w must hold at least x). */
static inline void usmp__wide_sub(usmp__wide *w, uint64_t x)
{
	if (w->lo < x)
		w->hi--;
	w->lo -= x;
}

/* w, or cap when w is larger. */
static inline uint64_t usmp__wide_min(usmp__wide w, uint64_t cap)
{
	return w.hi || w.lo > cap ? cap : w.lo;
}

/* ---- sorted arrays: binary search (inline) -------------------------------- */

/* The first position of the ascending a[0..n) whose value is not below x,
 * n when every value is below: usmp__first_ge_u32 (uint32_t values),
 * usmp__first_ge_u64 (uint64_t) and usmp__first_ge_i64 (int64_t), one search
 * written once for the three types. */
#define USMP__FIRST_GE(name, type)                                             \
	static inline size_t name(const type *a, size_t n, type x)             \
	{                                                                      \
		size_t lo = 0, hi = n;                                         \
		while (lo < hi) {                                              \
			size_t mid = lo + (hi - lo) / 2;                       \
			if (a[mid] < x)                                        \
				lo = mid + 1;                                  \
			else                                                   \
				hi = mid;                                      \
		}                                                              \
		return lo;                                                     \
	}
USMP__FIRST_GE(usmp__first_ge_u32, uint32_t)
USMP__FIRST_GE(usmp__first_ge_u64, uint64_t)
USMP__FIRST_GE(usmp__first_ge_i64, int64_t)
#undef USMP__FIRST_GE

/* ---- decimal digits (inline) --------------------------------------------- */

/* Room for the digits of any uint64_t. */
#define USMP__U64_DIGITS 20

/* x's decimal digits as "%" PRIu64 prints them, written at the end of d;
 * returns where they start (d + that .. d + USMP__U64_DIGITS). The writers
 * of large plans use it in place of a printf per number. */
static inline size_t usmp__u64_digits(char d[USMP__U64_DIGITS], uint64_t x)
{
	size_t k = USMP__U64_DIGITS;
	do {
		d[--k] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	return k;
}

/* ---- hash_key.c: hashes a file cannot aim ------------------------------- */

/* A secret of the process (random, the same in every thread and in forked
 * children), keying the hash tables filled from what a file names, so
 * that names or indices chosen to collide under a known hash do not. */
uint64_t usmp__hash_seed(void);
/* A 64-bit key (two indices, or a string's FNV-1a) hashed under the secret:
 * every bit of the result depends on every bit of the key. */
uint64_t usmp__hash_u64(uint64_t k);

/* ---- strmap.c: string -> uint32 hash map (open addressing) --------------- */

/* One slot of a usmp__strmap. */
typedef struct usmp__strmap_slot {
	uint64_t hv;     /* the key's hash (never 0) << 32 | value; 0 = empty */
	const char *key; /* borrowed: the owner keeps the strings alive */
} usmp__strmap_slot;

/* A key string is read only when its stored hash matches; hash, value and
 * key share a slot, so a look-up costs one cache miss plus the string. */
typedef struct usmp__strmap {
	usmp__strmap_slot *slots;
	size_t cap, count;
} usmp__strmap;

/* An empty map (allocates nothing). */
void usmp__strmap_init(usmp__strmap *m);
/* Free the map's slots (not the keys, which it borrows). */
void usmp__strmap_finish(usmp__strmap *m);
/* 0 found (*value set), USMP_ERR_NOT_FOUND otherwise. */
int usmp__strmap_get(const usmp__strmap *m, const char *key, uint32_t *value);
/* Insert; USMP_ERR_INVALID when present already, USMP_ERR_NOMEM. */
int usmp__strmap_put(usmp__strmap *m, const char *key, uint32_t value);
/* Ask the memory for the slot of the key s[0..n) (no NUL needed) ahead of
 * a get or put: a hint, for a reader that knows its next key early. */
void usmp__strmap_prefetch(const usmp__strmap *m, const char *s, size_t n);
/* Make room for `count` keys in all, so that inserting them rehashes
 * nothing (a hint: USMP_ERR_NOMEM leaves the map as it was). */
int usmp__strmap_reserve(usmp__strmap *m, size_t count);

/* ---- child.c: forked helper processes ------------------------------------ */

/* fork() for a helper child. In the child (0 returned): it gets SIGKILL when
 * the forking thread dies, sits in its own process group, ignores terminal
 * stop signals and is named `name` (ps, /proc/PID/comm). */
pid_t usmp__child_fork(const char *name);
/* Taken around every dlopen(), dlsym() and dlclose() of usmp's and around
 * usmp__child_fork's fork(), so no child starts inside another thread's
 * dlopen(); a no-op in a forked child. */
void usmp__loader_lock(void);
void usmp__loader_unlock(void);
/* True once the child has ended (not yet reaped), or cannot be waited for. */
bool usmp__child_exited(pid_t pid);
/* Wait until the child has ended (true) or usmp__now() reaches `until`
 * (false); it is not reaped. */
bool usmp__child_wait(pid_t pid, double until);
/* Kill the child's process group and the child, reap the child; its wait
 * status, or -1 when it could not be reaped. */
int usmp__child_reap(pid_t pid);

#endif /* USMP_UTIL_H */
