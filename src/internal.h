/* internal.h — every private area header at once, for the tests, benchmarks and
 * fuzzers that reach into libusmp; the library's own files include only what they use. */
#ifndef USMP_INTERNAL_H
#define USMP_INTERNAL_H

#include "util.h"
#include "problem.h"
#include "view.h"
#include "params.h"
#include "registry.h"
#include "host.h"
#include "plan.h"
#include "io.h"
#include "budget.h"
#include "dispatch.h"

#endif /* USMP_INTERNAL_H */
