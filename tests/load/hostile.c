/* hostile.c — the library never exits or aborts its host: bad files, mutated
 * problems, crashing/hanging/scribbling plugins, NULLs and bad indices, all
 * in one process that must live to print its summary.
 *   hostile PLUGIN_DIR FIXTURE_PLUGIN_DIR CORPUS_DIR EXAMPLE.json [MUTATIONS] */
#include "common.h"

#include <sys/stat.h>
#include <sys/wait.h>

static long seen, refused, accepted, planned;

static void try_bytes(usmp_registry *r, const char *data, size_t len, int fmt)
{
	usmp_problem *p = usmp_problem_create();
	seen++;
	if (usmp_problem_parse(p, data, len, "mutant", fmt, 1u << 20) != USMP_OK) {
		refused++;
		if (!*usmp_problem_error(p)) {
			fprintf(stderr, "refused without a message\n");
			exit(1);
		}
		usmp_problem_destroy(p);
		return;
	}
	accepted++;
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "first_fit", .time_limit = 1};
	usmp_plan *plan = NULL;
	if (usmp_plan_compute(r, p, &o, &plan) == USMP_OK) {
		planned++;
		if (usmp_plan_verify(plan, p) != USMP_OK) {
			fprintf(stderr, "a returned plan does not verify\n");
			exit(1);
		}
	}
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* Every corpus file, as JSON and as CSV. */
static void corpus(usmp_registry *r, const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
		DIR *dd = opendir(sub);
		struct dirent *f;
		if (!dd)
			continue;
		while ((f = readdir(dd)) != NULL) {
			char path[8192];
			size_t len;
			if (f->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
			char *data = slurp(path, &len);
			if (!data)
				continue;
			try_bytes(r, data, len, USMP_FORMAT_JSON);
			try_bytes(r, data, len, USMP_FORMAT_CSV);
			free(data);
		}
		closedir(dd);
	}
	closedir(d);
}

static void mutate(usmp_registry *r, const char *text, size_t len, long count)
{
	uint64_t s = 7;
	char *buf = malloc(len + 64);
	for (long i = 0; i < count; i++) {
		size_t n = len;
		memcpy(buf, text, len);
		int edits = 1 + (int)(rand64(&s) % 4);
		for (int k = 0; k < edits && n > 1; k++) {
			size_t at = rand64(&s) % n;
			switch (rand64(&s) % 4) {
			case 0: buf[at] = (char)rand64(&s); break;
			case 1: buf[at] = "0123456789-[]{}\",:e.\\"[rand64(&s) % 21]; break;
			case 2: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;
			default:
				if (n < len + 60) {
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] = "9-\"0,"[rand64(&s) % 5];
					n++;
				}
			}
		}
		try_bytes(r, buf, n, USMP_FORMAT_JSON);
	}
	free(buf);
}

/* Plugins that crash, hang, scribble, lie and leak. */
static void bad_plugins(const char *dir, const char *example)
{
	usmp_registry *r = load_registry(dir);
	usmp_problem *p = usmp_problem_create();
	if (usmp_problem_read(p, example, USMP_FORMAT_JSON, USMP_UNBOUNDED)) {
		fprintf(stderr, "%s\n", usmp_problem_error(p));
		exit(1);
	}
	static const struct {
		const char *algo;
		uint32_t flags;
	} runs[] = {
		{"fx_crash", 0},           {"fx_crash", USMP_PLAN_ISOLATE},
		{"fx_hang", 0},            {"fx_scribble", 0},
		{"fx_scribble", USMP_PLAN_ISOLATE},
		{"fx_invalid_plan", 0},    {"fx_invalid_plan", USMP_PLAN_NO_ISOLATE},
		{"fx_leak", 0},            {"fx_leak", USMP_PLAN_NO_ISOLATE},
		{"no_such_algorithm", 0},
	};
	printf("%-18s %-10s %-6s %s\n", "algorithm", "isolation", "status",
	       "message");
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .flags = runs[i].flags,
		                       .algorithm = runs[i].algo, .time_limit = 1};
		usmp_plan *plan = NULL;
		double t0 = now_s();
		int rc = usmp_plan_compute(r, p, &o, &plan);
		printf("%-18s %-10s %-6d %.160s (%.1f s)\n", runs[i].algo,
		       runs[i].flags & USMP_PLAN_ISOLATE      ? "isolate"
		       : runs[i].flags & USMP_PLAN_NO_ISOLATE ? "none"
		                                              : "default",
		       rc, usmp_plan_error(plan), now_s() - t0);
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* NULLs and out-of-range indices on every entry point that takes them. */
static void misuse(void)
{
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = NULL;
	uint32_t id;
	uint64_t off;
	usmp_problem_destroy(NULL);
	usmp_plan_destroy(NULL);
	usmp_registry_destroy(NULL);
	(void)usmp_problem_add_pool(NULL, "x", 1, 1, &id);
	(void)usmp_problem_add_pool(p, NULL, 1, 1, &id);
	(void)usmp_problem_add_pool_target(p, 99, "t");
	(void)usmp_problem_add_pool_target(p, 0, NULL);
	(void)usmp_problem_add_buffer(p, NULL, 1, 1, &id);
	(void)usmp_problem_add_buffer(NULL, "b", 1, 1, &id);
	(void)usmp_problem_set_live(p, 12345, 0, 1);
	(void)usmp_problem_add_candidate(p, 7, 9);
	(void)usmp_problem_set_fixed(p, 7, 9, 0);
	(void)usmp_problem_add_conflict(p, 1, 2);
	(void)usmp_problem_add_overlap(p, 1, 2, 0);
	(void)usmp_problem_pool_name(p, 5);
	(void)usmp_problem_buffer_name(p, 5);
	(void)usmp_problem_pool_name(NULL, 0);
	(void)usmp_problem_find_pool(p, NULL, &id);
	(void)usmp_problem_find_buffer(p, "nope", NULL);
	(void)usmp_problem_read(p, NULL, USMP_FORMAT_AUTO, 0);
	(void)usmp_problem_read(p, "/nonexistent", 77, 0);
	(void)usmp_problem_parse(p, NULL, 5, NULL, USMP_FORMAT_JSON, 0);
	(void)usmp_problem_parse(NULL, "{}", 2, NULL, USMP_FORMAT_JSON, 0);
	(void)usmp_problem_write(p, NULL, USMP_FORMAT_JSON);
	(void)usmp_problem_write(p, "/nonexistent/dir/x.json", USMP_FORMAT_JSON);
	(void)usmp_problem_prepare_group_bound(p, 99);
	(void)usmp_problem_prepare_pool_group(p, 99);
	(void)usmp_plan_compute(NULL, p, NULL, &plan);
	usmp_plan_destroy(plan);
	plan = NULL;
	(void)usmp_plan_read(p, NULL, USMP_FORMAT_JSON, &plan);
	(void)usmp_plan_placement(plan, 99, &id, &off);
	(void)usmp_plan_placement(NULL, 0, &id, &off);
	(void)usmp_plan_pool_size(plan, 99);
	(void)usmp_plan_part(plan, 99, NULL);
	(void)usmp_plan_verify(plan, NULL);
	(void)usmp_plan_verify(NULL, p);
	(void)usmp_plan_simulate(plan, NULL);
	(void)usmp_plan_write(plan, p, NULL, USMP_FORMAT_JSON);
	(void)usmp_plan_write_svg(NULL, p, "/dev/null");
	(void)usmp_plan_error(NULL);
	(void)usmp_problem_error(NULL);
	(void)usmp_status_name(-5);
	(void)usmp_status_name(1000);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: hostile PLUGIN_DIR FIXTURE_DIR CORPUS_DIR "
		                "EXAMPLE.json [MUTATIONS]\n");
		return 2;
	}
	long mutations = argc > 5 ? atol(argv[5]) : 20000;
	usmp_registry *r = load_registry(argv[1]);
	double t0 = now_s();
	misuse();
	printf("API misuse: survived NULL handles, NULL strings and bad indices\n");
	corpus(r, argv[3]);
	size_t len;
	char *text = slurp(argv[4], &len);
	if (!text) {
		fprintf(stderr, "%s: cannot read\n", argv[4]);
		return 2;
	}
	mutate(r, text, len, mutations);
	free(text);
	printf("inputs: %ld tried, %ld refused with a message, %ld accepted, %ld "
	       "planned and verified (%.1f s)\n", seen, refused, accepted, planned,
	       now_s() - t0);
	usmp_registry_destroy(r);
	bad_plugins(argv[2], argv[4]);
	int zombies = 0;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		zombies++;
	printf("host alive; %d unreaped children; %d open descriptors\n", zombies,
	       open_fds());
	return 0;
}
