/* hash_key.c — hashes keyed by a secret of the process, for the tables a file
 * fills (names, index pairs), so that crafted keys cannot crowd one run of slots. */
#include "util.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/*
 * The tables are open-addressed with linear probing: keys whose hashes share
 * their low bits sit in one run of slots, and each insertion and look-up
 * walks it. With a hash anyone can compute, a file can pick 100,000 buffer
 * names (or candidate and overlap pairs) that all do, and reading it takes
 * time in the square of that (25 s of CPU for a 3 MB file). Keyed by a
 * random secret drawn once per process, which names collide is unknown to
 * whoever writes the file. Nothing usmp prints depends on the slots, so
 * plans and files stay the same from run to run.
 */

static uint64_t seed;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

/* A bijective 64-bit mixer (MurmurHash3's finaliser). */
static uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

static void make_seed(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
		/* No entropy yet (early boot): the clock, the process and where
		 * the stack is; weaker, still unknown to a file's author. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		s = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
		    (uint64_t)getpid() << 12 ^ (uint64_t)(uintptr_t)&s;
	}
	seed = fmix64(s) | 1;
}

uint64_t usmp__hash_seed(void)
{
	pthread_once(&seed_once, make_seed);
	return seed;
}

uint64_t usmp__hash_u64(uint64_t k)
{
	uint64_t s = usmp__hash_seed();
	return fmix64(fmix64(k ^ s) + s);
}
