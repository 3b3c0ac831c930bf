/* host.c — an example compiler host: it dlopen()s libusmp.so.1 (no link-time
 * dependency), checks the library's ABI, plans a small two-target tensor graph
 * through the host API and prints the offset tables a code generator would emit.
 *
 * Build: examples/host/build.sh (only `cc` and `pkg-config --cflags usmp`).
 * Run:   ./host [--lib PATH] [--require-abi MAJOR.MINOR] [--algorithm SPEC]
 *
 * Everything the host calls in libusmp goes through one table of function
 * pointers filled by dlsym(); the pointer types come from <usmp/usmp.h>, so
 * the compiler checks every call against the header the host was built with.
 */
#include <usmp/usmp.h>

#include <ctype.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the function table ------------------------------------------------- */

/* Every libusmp function this host uses. */
#define HOST_API(X)                                                            \
	X(usmp_abi_version)                                                        \
	X(usmp_version)                                                            \
	X(usmp_status_name)                                                        \
	X(usmp_problem_create)                                                     \
	X(usmp_problem_destroy)                                                    \
	X(usmp_problem_error)                                                      \
	X(usmp_problem_add_pool)                                                   \
	X(usmp_problem_add_pool_target)                                            \
	X(usmp_problem_add_buffer)                                                 \
	X(usmp_problem_set_live)                                                   \
	X(usmp_problem_add_candidate)                                              \
	X(usmp_problem_add_overlap)                                                \
	X(usmp_problem_pool_count)                                                 \
	X(usmp_problem_pool_name)                                                  \
	X(usmp_problem_buffer_count)                                               \
	X(usmp_problem_buffer_name)                                                \
	X(usmp_registry_create)                                                    \
	X(usmp_registry_destroy)                                                   \
	X(usmp_registry_error)                                                     \
	X(usmp_registry_find_algorithm)                                            \
	X(usmp_registry_diagnostic_count)                                          \
	X(usmp_registry_diagnostic)                                                \
	X(usmp_registry_bind)                                                      \
	X(usmp_registry_select)                                                    \
	X(usmp_plan_compute)                                                       \
	X(usmp_plan_destroy)                                                       \
	X(usmp_plan_error)                                                         \
	X(usmp_plan_placement)                                                     \
	X(usmp_plan_pool_size)                                                     \
	X(usmp_plan_part_count)                                                    \
	X(usmp_plan_part)

/* One member per function, typed from the header's declaration. Taking the
 * type of a declared function does not reference the symbol, so nothing
 * here needs libusmp at link time. */
typedef struct usmp_api {
	void *handle;
#define HOST_FIELD(fn) __typeof__(&fn) fn;
	HOST_API(HOST_FIELD)
#undef HOST_FIELD
} usmp_api;

static const struct {
	const char *name;
	size_t offset;
} api_symbols[] = {
#define HOST_SYM(fn) {#fn, offsetof(usmp_api, fn)},
	HOST_API(HOST_SYM)
#undef HOST_SYM
};

/* dlopen the library and resolve every symbol of the table. Returns 0, or
 * prints why not and returns -1. */
static int api_load(usmp_api *api, const char *path)
{
	memset(api, 0, sizeof *api);
	api->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!api->handle) {
		fprintf(stderr, "host: cannot load %s: %s\n", path, dlerror());
		return -1;
	}
	for (size_t i = 0; i < sizeof api_symbols / sizeof api_symbols[0]; i++) {
		void *sym = dlsym(api->handle, api_symbols[i].name);
		if (!sym) {
			fprintf(stderr, "host: %s has no %s: not a usmp library this host "
			        "can use\n", path, api_symbols[i].name);
			dlclose(api->handle);
			api->handle = NULL;
			return -1;
		}
		/* POSIX guarantees a data pointer from dlsym converts to a
		 * function pointer; memcpy states it without a cast warning. */
		memcpy((char *)api + api_symbols[i].offset, &sym, sizeof sym);
	}
	return 0;
}

/* Refuse a library of another ABI major, or one whose minor is older than the
 * host needs. Checked before any other call. */
static int api_check_abi(const usmp_api *api, const char *path,
                         uint32_t need_major, uint32_t need_minor)
{
	uint32_t major = 0, minor = 0;

	api->usmp_abi_version(&major, &minor);
	if (major != need_major || minor < need_minor) {
		fprintf(stderr, "host: %s implements usmp ABI %" PRIu32 ".%" PRIu32
		        ", this host needs %" PRIu32 ".%" PRIu32 " or a later %" PRIu32
		        ".x; refusing to use it\n", path, major, minor, need_major,
		        need_minor, need_major);
		return -1;
	}
	return 0;
}

/* ---- the compiler's graph ----------------------------------------------- */

/* A tensor of the toy graph. Live ranges are derived from the ops. */
typedef struct tensor {
	const char *name;
	uint64_t bytes;
	int target; /* 0: NPU subgraph, 1: CPU subgraph */
} tensor;

/* An op: reads up to two tensors, writes one. Op i runs at time i. */
typedef struct op {
	const char *kind;
	int in[2]; /* tensor ids, -1 for none */
	int out;
	int in_place; /* output may overwrite in[0] as it streams (relu, add) */
} op;

enum {
	T_NPU_IN, T_CONV1, T_RELU1, T_CONV2, T_CONV3, T_ADD1,
	T_CPU_IN, T_CONV4, T_RELU2, T_CONV5, T_ADD2,
	T_COUNT
};

static const tensor tensors[T_COUNT] = {
	[T_NPU_IN] = {"npu.input", 32 * 32 * 16, 0},
	[T_CONV1] = {"conv1.out", 32 * 32 * 32, 0},
	[T_RELU1] = {"relu1.out", 32 * 32 * 32, 0},
	[T_CONV2] = {"conv2.out", 16 * 16 * 64, 0},
	[T_CONV3] = {"conv3.out", 16 * 16 * 64, 0},
	[T_ADD1] = {"add1.out", 16 * 16 * 64, 0},
	[T_CPU_IN] = {"cpu.input", 16 * 16 * 64, 1},
	[T_CONV4] = {"conv4.out", 16 * 16 * 128, 1},
	[T_RELU2] = {"relu2.out", 16 * 16 * 128, 1},
	[T_CONV5] = {"conv5.out", 8 * 8 * 128, 1},
	[T_ADD2] = {"add2.out", 8 * 8 * 128, 1},
};

static const op ops[] = {
	{"conv", {T_NPU_IN, -1}, T_CONV1, 0},
	{"relu", {T_CONV1, -1}, T_RELU1, 1},
	{"conv", {T_RELU1, -1}, T_CONV2, 0},
	{"conv", {T_RELU1, -1}, T_CONV3, 0},
	{"add", {T_CONV2, T_CONV3}, T_ADD1, 1},
	{"conv", {T_CPU_IN, -1}, T_CONV4, 0},
	{"relu", {T_CONV4, -1}, T_RELU2, 1},
	{"conv", {T_RELU2, -1}, T_CONV5, 0},
	{"add", {T_CONV5, T_RELU2}, T_ADD2, 0},
};
#define OP_COUNT ((int)(sizeof ops / sizeof ops[0]))

/* Live range [first, last + 1) over the ops that write or read the tensor;
 * graph outputs (never read) stay live to the end of their subgraph. */
static void live_range(int t, int64_t *begin, int64_t *end)
{
	int first = -1, last = -1, sub_end = 0;

	for (int i = 0; i < OP_COUNT; i++) {
		int uses = ops[i].out == t || ops[i].in[0] == t || ops[i].in[1] == t;
		if (tensors[ops[i].out].target == tensors[t].target)
			sub_end = i;
		if (!uses)
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	int read_later = 0;
	for (int i = 0; i < OP_COUNT; i++)
		read_later |= ops[i].in[0] == t || ops[i].in[1] == t;
	if (!read_later)
		last = sub_end;
	*begin = first;
	*end = (int64_t)last + 1;
}

/* ---- building, planning, emitting --------------------------------------- */

enum { POOL_NPU_SRAM, POOL_DTCM, POOL_DRAM, POOL_COUNT };

/* Fail with the problem's message. */
#define CHECK_P(call)                                                          \
	do {                                                                       \
		int rc_ = (call);                                                      \
		if (rc_) {                                                             \
			fprintf(stderr, "host: %s: %s\n", #call,                           \
			        api->usmp_problem_error(p));                               \
			return rc_;                                                        \
		}                                                                      \
	} while (0)

static int build_problem(const usmp_api *api, usmp_problem *p)
{
	uint32_t pool[POOL_COUNT], id;

	CHECK_P(api->usmp_problem_add_pool(p, "npu_sram", 256 * 1024, 16,
	                                   &pool[POOL_NPU_SRAM]));
	CHECK_P(api->usmp_problem_add_pool_target(p, pool[POOL_NPU_SRAM],
	                                          "ethos-u55"));
	CHECK_P(api->usmp_problem_add_pool(p, "dtcm", 40 * 1024, 8,
	                                   &pool[POOL_DTCM]));
	CHECK_P(api->usmp_problem_add_pool_target(p, pool[POOL_DTCM],
	                                          "cortex-m55"));
	CHECK_P(api->usmp_problem_add_pool(p, "dram", 8u << 20, 32,
	                                   &pool[POOL_DRAM]));
	CHECK_P(api->usmp_problem_add_pool_target(p, pool[POOL_DRAM],
	                                          "cortex-m55"));

	for (int t = 0; t < T_COUNT; t++) {
		int64_t begin, end;
		CHECK_P(api->usmp_problem_add_buffer(p, tensors[t].name,
		                                     tensors[t].bytes, 16, &id));
		live_range(t, &begin, &end);
		CHECK_P(api->usmp_problem_set_live(p, id, begin, end));
		if (tensors[t].target == 0) {
			CHECK_P(api->usmp_problem_add_candidate(p, id,
			                                        pool[POOL_NPU_SRAM]));
		} else {
			/* Fast memory first, spill to DRAM. */
			CHECK_P(api->usmp_problem_add_candidate(p, id, pool[POOL_DTCM]));
			CHECK_P(api->usmp_problem_add_candidate(p, id, pool[POOL_DRAM]));
		}
	}
	/* Element-wise ops stream: their output may start at their input. */
	for (int i = 0; i < OP_COUNT; i++)
		if (ops[i].in_place &&
		    tensors[ops[i].out].bytes == tensors[ops[i].in[0]].bytes)
			CHECK_P(api->usmp_problem_add_overlap(p, (uint32_t)ops[i].in[0],
			                                      (uint32_t)ops[i].out, 0));
	return 0;
}

/* Bind the first algorithm of `choices` the registry has to `pattern`. */
static int bind_first(const usmp_api *api, usmp_registry *r,
                      const char *pattern, const char *const *choices)
{
	for (; *choices; choices++) {
		uint32_t idx;
		if (api->usmp_registry_find_algorithm(r, *choices, &idx))
			continue;
		if (api->usmp_registry_bind(r, pattern, *choices, NULL, 0)) {
			fprintf(stderr, "host: bind %s=%s: %s\n", pattern, *choices,
			        api->usmp_registry_error(r));
			return -1;
		}
		return 0;
	}
	return 0; /* none loaded: the library's default (auto) applies */
}

/* A C identifier from a pool name: anything else becomes '_'. */
static void c_ident(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++) {
		char c = src[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		         (c >= '0' && c <= '9') || c == '_';
		dst[i] = ok ? c : '_';
	}
	dst[i] = '\0';
}

static int emit(const usmp_api *api, usmp_problem *p, const usmp_plan *plan)
{
	uint32_t np = api->usmp_problem_pool_count(p);
	uint32_t nb = api->usmp_problem_buffer_count(p);

	printf("/* generated by the usmp example host */\n");
	printf("#include <stdint.h>\n");
	for (uint32_t j = 0; j < np; j++) {
		char ident[64], upper[64];
		uint32_t count = 0;

		c_ident(ident, sizeof ident, api->usmp_problem_pool_name(p, j));
		for (size_t k = 0; k == 0 || ident[k - 1]; k++)
			upper[k] = (char)toupper((unsigned char)ident[k]);
		printf("\n/* pool %s: %" PRIu64 " bytes */\n",
		       api->usmp_problem_pool_name(p, j),
		       api->usmp_plan_pool_size(plan, j));
		printf("#define %s_SIZE %" PRIu64 "u\n", upper,
		       api->usmp_plan_pool_size(plan, j));
		printf("static const uint32_t %s_offsets[] = {\n", ident);
		for (uint32_t b = 0; b < nb; b++) {
			uint32_t pool;
			uint64_t off;
			if (api->usmp_plan_placement(plan, b, &pool, &off)) {
				fprintf(stderr, "host: no placement for %s: %s\n",
				        api->usmp_problem_buffer_name(p, b),
				        api->usmp_plan_error(plan));
				return -1;
			}
			if (pool != j)
				continue;
			if (off > UINT32_MAX) {
				fprintf(stderr, "host: offset of %s does not fit 32 bits\n",
				        api->usmp_problem_buffer_name(p, b));
				return -1;
			}
			printf("\t%" PRIu64 "u, /* %s */\n", off,
			       api->usmp_problem_buffer_name(p, b));
			count++;
		}
		if (!count)
			printf("\t0u /* no buffers */\n");
		printf("};\n");
	}
	return 0;
}

static void summarize(const usmp_api *api, const usmp_plan *plan)
{
	uint32_t n = api->usmp_plan_part_count(plan);

	for (uint32_t i = 0; i < n; i++) {
		usmp_part_info info;
		memset(&info, 0, sizeof info);
		info.struct_size = sizeof info;
		if (api->usmp_plan_part(plan, i, &info))
			continue;
		fprintf(stderr, "part %" PRIu32 ": target %s, %" PRIu32
		        " buffers, algorithm %s%s%s, size %" PRIu64
		        ", lower bound %" PRIu64 "%s, %.2f ms\n",
		        i, info.target[0] ? info.target : "(none)",
		        info.buffer_count, info.algorithm,
		        info.params && info.params[0] ? " " : "",
		        info.params ? info.params : "", info.size, info.lower_bound,
		        info.optimal ? " (optimal)" : "", info.time_ms);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: host [--lib PATH] [--require-abi MAJOR.MINOR] "
	        "[--algorithm SPEC]\n");
}

int main(int argc, char **argv)
{
	const char *lib = getenv("USMP_LIBRARY");
	const char *algorithm = NULL;
	unsigned need_major = USMP_ABI_MAJOR, need_minor = USMP_ABI_MINOR;
	usmp_api api_store;
	const usmp_api *api = &api_store;
	usmp_problem *p = NULL;
	usmp_registry *r = NULL;
	usmp_plan *plan = NULL;
	int status = 1;

	if (!lib || !*lib)
		lib = "libusmp.so.1";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lib") && i + 1 < argc) {
			lib = argv[++i];
		} else if (!strcmp(argv[i], "--require-abi") && i + 1 < argc) {
			char tail;
			if (sscanf(argv[++i], "%u.%u%c", &need_major, &need_minor,
			           &tail) != 2) {
				fprintf(stderr, "host: --require-abi wants MAJOR.MINOR, got "
				        "\"%s\"\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--algorithm") && i + 1 < argc) {
			algorithm = argv[++i];
		} else {
			usage();
			return 2;
		}
	}

	if (api_load(&api_store, lib))
		return 1;
	if (api_check_abi(api, lib, need_major, need_minor))
		goto out;
	{
		uint32_t ma, mi;
		api->usmp_abi_version(&ma, &mi);
		fprintf(stderr, "host: using %s: usmp %s, ABI %" PRIu32 ".%" PRIu32
		        "\n", lib, api->usmp_version(), ma, mi);
	}

	p = api->usmp_problem_create();
	if (!p) {
		fprintf(stderr, "host: out of memory\n");
		goto out;
	}
	if (build_problem(api, p))
		goto out;

	usmp_registry_options ro;
	memset(&ro, 0, sizeof ro);
	ro.struct_size = sizeof ro;
	if (api->usmp_registry_create(&ro, &r)) {
		fprintf(stderr, "host: cannot create the registry\n");
		goto out;
	}
	for (uint32_t i = 0; i < api->usmp_registry_diagnostic_count(r); i++)
		fprintf(stderr, "host: skipped plugin: %s\n",
		        api->usmp_registry_diagnostic(r, i));

	/* Per-target choices: search the NPU scratchpad exactly when the exact
	 * plugin is there, a fast heuristic elsewhere. Rules bound through the
	 * API take precedence over usmp_plan_options.algorithm, so a user's
	 * --algorithm replaces the bindings instead of going on top. */
	static const char *const npu_algos[] = {"exact", "best_fit", NULL};
	static const char *const any_algos[] = {"first_fit", NULL};
	if (!algorithm && (bind_first(api, r, "ethos-u*", npu_algos) ||
	                   bind_first(api, r, "*", any_algos)))
		goto out;
	static const char *const targets[] = {"ethos-u55", "cortex-m55"};
	for (size_t i = 0; i < 2; i++) {
		usmp_selection sel;
		memset(&sel, 0, sizeof sel);
		sel.struct_size = sizeof sel;
		if (api->usmp_registry_select(r, targets[i], algorithm, &sel) == 0)
			fprintf(stderr, "host: target %s -> %s (rule \"%s\")\n",
			        targets[i], sel.algorithm, sel.rule);
	}

	usmp_plan_options po;
	memset(&po, 0, sizeof po);
	po.struct_size = sizeof po;
	po.algorithm = algorithm;
	po.time_limit = 5.0;
	int rc = api->usmp_plan_compute(r, p, &po, &plan);
	if (rc) {
		fprintf(stderr, "host: planning failed (%s): %s\n",
		        api->usmp_status_name(rc),
		        plan ? api->usmp_plan_error(plan) : "out of memory");
		goto out;
	}
	summarize(api, plan);
	if (emit(api, p, plan))
		goto out;
	status = 0;
out:
	if (api->handle) {
		if (api->usmp_plan_destroy)
			api->usmp_plan_destroy(plan);
		if (api->usmp_registry_destroy)
			api->usmp_registry_destroy(r);
		if (api->usmp_problem_destroy)
			api->usmp_problem_destroy(p);
		dlclose(api->handle);
	}
	return status;
}
