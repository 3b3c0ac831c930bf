/* fuzz.h — what every fuzz harness shares: the libFuzzer entry point it
 * defines, and a check that aborts (so libFuzzer and the replay runner see it). */
#ifndef USMP_FUZZ_H
#define USMP_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                       \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__,        \
			        __LINE__, #cond);                                          \
			abort();                                                           \
		}                                                                      \
	} while (0)

#endif
