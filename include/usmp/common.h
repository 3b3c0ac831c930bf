/* usmp/common.h — what hosts and plugins share: the ABI version, status codes,
 * capability flags and the parameter types of the algorithm signature strings.
 *
 * This header is included by both <usmp/usmp.h> (hosts) and <usmp/plugin.h>
 * (algorithm plugins). It declares no functions, so a plugin that includes it
 * never needs to link against libusmp.
 *
 * Rules (see docs/abi.md): within ABI major 1, every value below keeps its
 * number forever; new values are only ever added.
 */
#ifndef USMP_COMMON_H
#define USMP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version of these headers. A plugin loads into a host when its major
 * equals the host's and its minor is not newer than the host's.
 * Minor history: 1.0 first release; 1.1 appended usmp_algorithm.param_help;
 * 1.2 added USMP_CAP_PORTFOLIO and appended usmp_algorithm.cost; 1.3 added
 * host calls that read a problem back (no change on the plugin side). */
#define USMP_ABI_MAJOR 1
#define USMP_ABI_MINOR 3

/* Status codes, returned as `int` by every fallible call of the host API and
 * by every algorithm. 0 is success; everything else is an error whose text
 * the host API keeps on the handle involved. */
enum usmp_status {
	USMP_OK = 0,
	USMP_ERR_INVALID = 1,      /* bad argument, malformed input, bad knob value */
	USMP_ERR_INFEASIBLE = 2,   /* no plan fits the pools' size limits (or none
	                              was found: usmp_plan_infeasibility says which) */
	USMP_ERR_PLUGIN = 3,       /* plugin failed to load, crashed, or broke its contract */
	USMP_ERR_NOT_FOUND = 4,    /* unknown algorithm, pool, buffer or knob name */
	USMP_ERR_NOMEM = 5,        /* out of memory */
	USMP_ERR_IO = 6,           /* a file could not be read or written */
	USMP_ERR_STOPPED = 7,      /* stopped (deadline or cancel) before any plan was found */
	USMP_ERR_UNSUPPORTED = 8,  /* the algorithm cannot handle a feature the problem uses */
	USMP_ERR_INVALID_PLAN = 9, /* the verifier rejected a plan */
	USMP_ERR_INTERNAL = 10     /* a bug in usmp: please report it */
};

/* Capability flags of an algorithm (usmp_algorithm.caps). The host uses them
 * to refuse problems an algorithm cannot plan and to choose portfolio members. */
enum usmp_capability {
	USMP_CAP_MULTI_POOL = 1u << 0,       /* chooses among several candidate pools */
	USMP_CAP_OVERLAP_RULES = 1u << 1,    /* may overlap buffers as overlap rules allow */
	USMP_CAP_FIXED_OFFSETS = 1u << 2,    /* honours buffers with a fixed pool and offset */
	USMP_CAP_EXACT = 1u << 3,            /* can prove a plan optimal (reports it) */
	USMP_CAP_DETERMINISTIC = 1u << 4,    /* same input and knobs give the same plan */
	USMP_CAP_ANYTIME = 1u << 5,          /* returns its best plan so far when asked to stop */
	USMP_CAP_EXPLICIT_CONFLICTS = 1u << 6, /* honours conflict edges, not only live ranges */
	/* ABI 1.2: the algorithm volunteers for "auto": auto may run it with its
	 * default knobs, after the shipped heuristics, when time allows, and
	 * keep its plan when it is valid and smaller (docs/plugins.md). */
	USMP_CAP_PORTFOLIO = 1u << 7
};

/* Knob types of a parameter signature ("seed:u64=0 name:str=size"), and the C
 * type the algorithm function receives for each. */
enum usmp_param_type {
	USMP_PARAM_BOOL = 1, /* "bool": C `bool`; values true/false/1/0/yes/no, any case */
	USMP_PARAM_I32 = 2,  /* "i32":  int32_t  */
	USMP_PARAM_U32 = 3,  /* "u32":  uint32_t */
	USMP_PARAM_I64 = 4,  /* "i64":  int64_t  */
	USMP_PARAM_U64 = 5,  /* "u64":  uint64_t */
	USMP_PARAM_F64 = 6,  /* "f64":  double   */
	USMP_PARAM_STR = 7   /* "str":  const char * (NUL-terminated, valid for the call) */
};

/* Log levels for usmp_host.log and usmp_registry_set_log; a message is shown
 * when its level is at most the level chosen (USMP_LOG_ERROR shows errors
 * only, USMP_LOG_DEBUG everything). */
enum usmp_log_level {
	USMP_LOG_ERROR = 0,
	USMP_LOG_WARN = 1,
	USMP_LOG_INFO = 2,
	USMP_LOG_DEBUG = 3
};

/* A size limit meaning "no limit" (pools), and "no pool chosen" (placements). */
#define USMP_UNBOUNDED UINT64_MAX
#define USMP_NO_POOL UINT32_MAX

#ifdef __cplusplus
}
#endif
#endif /* USMP_COMMON_H */
