/* test_redteam7.c — a seventh adversarial pass: names and indices a file
 * chooses to crowd the hash tables, and what else it found (docs/errors.md). */
#include "internal.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- names crafted against an unkeyed hash ------------------------------- */

/* The string hash the name tables used, unkeyed: FNV-1a over the bytes,
 * the high half folded onto the low. Anyone can compute it, so a file can
 * choose names whose slots all fall in one short stretch of the table. */
static uint32_t unkeyed_name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	uint32_t r = (uint32_t)(h ^ (h >> 32));
	return r ? r : 1;
}

/* `n` names "b<k>" whose unkeyed hash has its low `bits` bits below `w`,
 * as one block of NUL-separated strings (*names[i] into it). */
static char *crowded_names(uint32_t n, unsigned bits, uint32_t w,
                           const char ***names)
{
	char *block = malloc((size_t)n * 24);
	const char **at = malloc((size_t)n * sizeof *at);
	cr_assert(block && at);
	size_t used = 0;
	uint32_t mask = (1u << bits) - 1;
	for (uint64_t k = 0, got = 0; got < n; k++) {
		char name[24];
		snprintf(name, sizeof name, "b%llu", (unsigned long long)k);
		if ((unkeyed_name_hash(name) & mask) >= w)
			continue;
		at[got++] = block + used;
		memcpy(block + used, name, strlen(name) + 1);
		used += strlen(name) + 1;
	}
	*names = at;
	return block;
}

/* The longest run of occupied slots in the map (a look-up or insertion
 * walks at most that far). */
static size_t longest_run(const usmp__strmap *m)
{
	size_t best = 0, run = 0;
	/* twice round, for a run that wraps past the last slot */
	for (size_t i = 0; i < 2 * m->cap; i++) {
		run = m->slots[i % m->cap].hv ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best > m->cap ? m->cap : best;
}

/* The name tables (buffer and pool names, targets, the names a plan file
 * is read by) hashed every name with the unkeyed function above, so
 * names chosen to share the low bits of their hash all landed in one run
 * of slots and every insertion and look-up walked it: 100,000 such buffer
 * names (a 3 MB JSON file) took 25 s of CPU to read, where 100,000 plain
 * names take 0.2 s. The hash is now keyed by a secret of the process. */
Test(redteam7, names_crafted_against_the_hash_do_not_crowd_one_run)
{
	const uint32_t n = 60000; /* a table of 2^17 slots */
	const char **names;
	char *block = crowded_names(n, 17, 1024, &names);
	usmp__strmap m;
	usmp__strmap_init(&m);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(usmp__strmap_put(&m, names[i], i), USMP_OK);
	cr_assert_eq(m.cap, (size_t)1 << 17);
	/* Keyed, the 60,000 keys at half load spread like random ones (the
	 * longest run is a few dozen); unkeyed, they formed one run of all. */
	size_t run = longest_run(&m);
	cr_assert_lt(run, 1000, "a run of %zu occupied slots", run);
	for (uint32_t i = 0; i < n; i += 997) {
		uint32_t v = UINT32_MAX;
		cr_assert_eq(usmp__strmap_get(&m, names[i], &v), USMP_OK);
		cr_assert_eq(v, i);
	}
	cr_assert_eq(usmp__strmap_get(&m, "not-there", NULL), USMP_ERR_NOT_FOUND);
	usmp__strmap_finish(&m);
	free(names);
	free(block);
}

/* The sets of (buffer, pool) candidate pairs and of (src, dst) overlap
 * rules hashed their 64-bit keys with an unkeyed mixer: a file choosing
 * which pairs to name could crowd them the same way. Pairs whose unkeyed
 * hashes share their low 16 bits spread under the keyed one. */
static uint64_t unkeyed_pair_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

Test(redteam7, index_pairs_crafted_against_the_hash_spread)
{
	enum { N = 2000, BITS = 16 };
	static uint64_t keys[N];
	static unsigned char seen[1u << BITS];
	uint32_t got = 0;
	for (uint64_t src = 0; got < N; src++)
		for (uint64_t dst = 0; dst < 4096 && got < N; dst++) {
			uint64_t k = src << 32 | dst;
			if ((unkeyed_pair_hash(k) & ((1u << BITS) - 1)) == 7)
				keys[got++] = k;
		}
	uint32_t distinct = 0;
	for (uint32_t i = 0; i < N; i++) {
		size_t slot = usmp__hash_u64(keys[i]) & ((1u << BITS) - 1);
		distinct += !seen[slot];
		seen[slot] = 1;
	}
	/* 2,000 random keys over 65,536 slots: about 1,970 distinct */
	cr_assert_gt(distinct, N * 9 / 10, "%u distinct slots of %u keys",
	             distinct, N);
	/* the same key, the same hash (within the process) */
	cr_assert_eq(usmp__hash_u64(keys[0]), usmp__hash_u64(keys[0]));
}

/* What a reader sees: a JSON problem of crowded buffer names, with
 * conflict edges naming them, reads back whole and plans. */
Test(redteam7, a_problem_of_crowded_names_reads_whole, .timeout = 60)
{
	const uint32_t n = 100000;
	const char **names;
	char *block = crowded_names(n, 18, 4096, &names);
	size_t cap = (size_t)n * 64 + 4096, used = 0;
	char *json = malloc(cap);
	cr_assert_not_null(json);
	used += (size_t)snprintf(json + used, cap - used,
	                         "{\"usmp\": 1, \"buffers\": [");
	for (uint32_t i = 0; i < n; i++)
		used += (size_t)snprintf(json + used, cap - used,
		                         "%s{\"name\": \"%s\", \"size\": 1}",
		                         i ? ", " : "", names[i]);
	used += (size_t)snprintf(json + used, cap - used,
	                         "], \"conflicts\": [[\"%s\", \"%s\"]]}",
	                         names[0], names[n - 1]);
	usmp_problem *p = test_parse_json(json, "crowded.json");
	cr_assert_eq(usmp_problem_buffer_count(p), n);
	uint32_t id = 0;
	cr_assert_eq(usmp_problem_find_buffer(p, names[n / 2], &id), USMP_OK);
	cr_assert_eq(id, n / 2);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 2,
	             "the edge's two bytes");
	usmp_problem_destroy(p);
	free(json);
	free(names);
	free(block);
}

/* ---- a replay of many large buffers --------------------------------------- */

/* usmp simulate refused pools above 512 MiB in all (the memory it takes)
 * but not the bytes it writes, one per byte of every live buffer: 20
 * buffers of 256 MiB one after the other at offset 0 (a CSV problem and
 * plan of 20 lines each) took 15 s of CPU, 2,000 such lines about half
 * an hour, 100,000 a day. The replay now refuses, before it allocates or
 * writes anything, to write more than 4 GiB, naming the sum. */
Test(redteam7, a_replay_writing_more_than_it_replays_is_refused_first)
{
	const uint32_t n = 20;
	char *problem = malloc(64 * n + 64), *plan = malloc(64 * n + 64);
	cr_assert(problem && plan);
	size_t a = (size_t)sprintf(problem, "id,lower,upper,size\n");
	size_t b = (size_t)sprintf(plan, "id,lower,upper,size,offset\n");
	for (uint32_t i = 0; i < n; i++) {
		a += (size_t)sprintf(problem + a, "b%u,%u,%u,%u\n", i, i, i + 1,
		                     256u << 20);
		b += (size_t)sprintf(plan + b, "b%u,%u,%u,%u,0\n", i, i, i + 1,
		                     256u << 20);
	}
	char *pp = test_write_tmp(".csv", problem), *lp = test_write_tmp(".csv", plan);
	char *out = NULL;
	int rc = test_usmp(&out, "simulate '%s' '%s'", pp, lp);
	cr_assert_eq(rc, 2, "exit %d: %s", rc, out);
	cr_assert(strstr(out, "the replay would write 5368709120 bytes (the "
	                      "sizes of its 20 live buffers), more than the "
	                      "4294967296 it replays"), "%s", out);
	free(out);
	/* the verifier judges the same plan at once */
	rc = test_usmp(&out, "verify '%s' '%s'", pp, lp);
	cr_assert_eq(rc, 0, "%s", out);
	free(out);
	/* through the API alike: the plan first_fit makes, refused as input
	 * too large for the replay (USMP_ERR_INVALID, as pools past 512 MiB) */
	usmp_problem *p = usmp_problem_create();
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 256u << 20, 1, NULL),
		             USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, i, i + 1), USMP_OK);
	}
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *pl = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_pool_size(pl, 0), 256u << 20);
	cr_assert_eq(usmp_plan_simulate(pl, p), USMP_ERR_INVALID);
	cr_assert(strstr(usmp_plan_error(pl), "more than the 4294967296 it "
	                                      "replays"), "%s",
	          usmp_plan_error(pl));
	usmp_plan_destroy(pl);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	remove(pp);
	remove(lp);
	free(pp);
	free(lp);
	free(problem);
	free(plan);
}

/* ---- -o and --svg through a dangling link --------------------------------- */

/* usmp plan refuses -o and --svg naming one file, by inode when it exists
 * and by resolved name when it does not yet; a symbolic link to the plan's
 * path, dangling until the plan is written, resolved to its own name:
 * both were written, the picture over the plan, exit 0, no plan left.
 * The last component's links are now followed (relative to the link's
 * directory) before the names are compared. */
Test(redteam7, outputs_naming_one_file_through_a_dangling_link_are_refused)
{
	char *dir = test_fresh_dir("rt7-link");
	static const char model[] = "{\"usmp\": 1, \"buffers\": [{\"name\": "
	                            "\"a\", \"size\": 8, \"live\": [0, 1]}]}";
	test_write_in(dir, "model.json", model, sizeof model - 1);
	char *sub = test_join(dir, "pics");
	cr_assert_eq(mkdir(sub, 0755), 0);
	char *plan = test_join(dir, "plan.json");
	char *link1 = test_join(dir, "plan.svg");   /* -> plan.json */
	char *link2 = test_join(sub, "up.svg");     /* -> ../plan.json */
	char *link3 = test_join(dir, "chain.svg");  /* -> plan.svg -> plan.json */
	cr_assert_eq(symlink("plan.json", link1), 0);
	cr_assert_eq(symlink("../plan.json", link2), 0);
	cr_assert_eq(symlink("plan.svg", link3), 0);
	const char *svgs[] = {link1, link2, link3};
	for (size_t k = 0; k < 3; k++) {
		char *out = NULL;
		int rc = test_usmp(&out, "plan '%s/model.json' -o '%s' --svg '%s'",
		                   dir, plan, svgs[k]);
		cr_assert_eq(rc, 2, "%s: exit %d: %s", svgs[k], rc, out);
		cr_assert(strstr(out, "name the same file"), "%s", out);
		cr_assert_eq(access(plan, F_OK), -1, "%s: the plan was written",
		             svgs[k]);
		free(out);
	}
	/* another name in the same directory is no clash */
	char *other = test_join(dir, "other.svg");
	char *out = NULL;
	int rc = test_usmp(&out, "plan '%s/model.json' -q -o '%s' --svg '%s'", dir,
	                   plan, other);
	cr_assert_eq(rc, 0, "%s", out);
	char *text = test_read_file(plan);
	cr_assert(text && strstr(text, "\"buffers\""), "%s", text);
	free(text);
	free(out);
	free(other);
	free(link3);
	free(link2);
	free(link1);
	free(plan);
	free(sub);
	free(dir);
}

/* ---- knob values with blanks in a plan file ------------------------------- */

/* A part's knob values are kept as the text "k=v k=v", which the JSON
 * writer split again at blanks and '=': a plugin's str knob set to
 * "fast x=1" was written as {"s": "fast", "x": "1"} (a knob the plugin
 * does not have), "a  b" as "a b" and " lead" as "lead", and a plan file
 * holding such values did not write back the same (docs/formats.md: a
 * plan read back writes the same). Each part now keeps its knobs as
 * (name, value) pairs for the writer. */
Test(redteam7, knob_values_with_blanks_and_equals_survive_a_plan_file)
{
	char *echo = test_fmt("%s/echo.so", test_fixture_plugindir());
	usmp_registry *r = test_registry(echo);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 1, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 8, 1, NULL), USMP_OK);
	const char *params[] = {"s=fast x=1  y "};
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "fx_echo",
	                       .params = params, .param_count = 1,
	                       .flags = USMP_PLAN_NO_ISOLATE};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_JSON), USMP_OK,
	             "%s", usmp_plan_error(plan));
	char *text = test_read_file(path);
	cr_assert(strstr(text, "\"s\": \"fast x=1  y \""), "%s", text);
	cr_assert_null(strstr(text, "\"x\":"), "%s", text);
	/* read back and written again: the same bytes */
	usmp_plan *back = NULL;
	cr_assert_eq(usmp_plan_read(p, path, USMP_FORMAT_JSON, &back), USMP_OK,
	             "%s", usmp_plan_error(back));
	char *path2 = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(back, p, path2, USMP_FORMAT_JSON), USMP_OK);
	char *text2 = test_read_file(path2);
	cr_assert_str_eq(text2, text);
	/* the part's text form is as before, for hosts */
	usmp_part_info pi = test_part(back, 0);
	cr_assert(strstr(pi.params, "s=fast x=1  y "), "%s", pi.params);
	free(text2);
	free(text);
	remove(path2);
	remove(path);
	free(path2);
	free(path);
	usmp_plan_destroy(back);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(echo);
}

/* ---- out of memory while reading ------------------------------------------ */

/* Every command exits 5 for USMP_ERR_NOMEM ("nothing is said about the
 * input"), but reading the problem or the plan file out of memory exited
 * 2, bad input: an input of no NUL byte that never ends (then `yes |`;
 * now a stream whose every prefix is valid), or one too large for the
 * memory there is, was blamed. Reading now keeps the
 * status: 5 out of memory, 2 for a file that cannot be read or parsed. */
Test(redteam7, reading_out_of_memory_exits_5_not_bad_input)
{
#ifdef USMP_TEST_SANITIZED
	cr_skip("a limit on address space: not under the sanitizers");
#else
	char *model = test_write_tmp(".json", "{\"usmp\": 1, \"buffers\": "
	                             "[{\"name\": \"a\", \"size\": 8}]}");
	static const char *const cmds[] = {"bound -", "plan - -q -o /dev/null",
	                                   "verify '%s' -", "simulate '%s' -"};
	for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
		char *args = test_fmt(cmds[k], model);
		char *out = NULL;
		/* every prefix valid JSON: read until memory runs out (the
		 * 4 GiB limit on one file is not reached under this limit;
		 * the smaller the limit, the sooner: 150 MB is three times
		 * what the command needs before it reads) */
		char *cmd = test_fmt("ulimit -v 150000; (printf '{\"a\": \"'; "
		                     "yes | tr -d '\\n') | USMP_PLUGIN_PATH= "
		                     "USMP_ALGORITHM= '%s' %s", test_cli(), args);
		int rc = test_run(cmd, &out);
		cr_assert_eq(rc, 5, "%s: exit %d: %s", args, rc, out);
		cr_assert(strstr(out, "<stdin>: out of memory reading the file"),
		          "%s: %s", args, out);
		free(cmd);
		free(out);
		free(args);
	}
	/* a file that cannot be read is still bad input (2) */
	char *out = NULL;
	int rc = test_usmp(&out, "bound /nonexistent/model.json");
	cr_assert_eq(rc, 2, "%s", out);
	free(out);
	remove(model);
	free(model);
#endif
}

/* ---- Python: closing what another thread is using ------------------------- */

/* Registry.plan() releases the GIL while libusmp plans, as documented (many
 * threads may plan with one registry); a close() of that registry from
 * another thread meanwhile (or of the problem, or a `with` block left
 * while a worker still plans) destroyed the C objects under the running
 * call: the interpreter died of SIGSEGV. A close() while a call is in
 * flight now refuses new calls at once ("registry is closed") and frees
 * the C object when the last call in flight returns; that call finishes
 * normally, and its plan's later calls that need the closed problem are
 * refused. */
Test(redteam7, python_close_while_another_thread_plans_waits_for_it)
{
	static const char script[] =
		"import threading, time, usmp\n"
		"def problem():\n"
		"    p = usmp.Problem()\n"
		"    p.add_pool('s')\n"
		"    for i in range(3000):\n"
		"        p.add_buffer('b%d' % i, 16 + i % 7, live=(i % 50, i % 50 + 10))\n"
		"    return p\n"
		"for what in ('registry', 'problem'):\n"
		"    p, r, res = problem(), usmp.Registry(), {}\n"
		"    started = threading.Event()\n"
		"    def work():\n"
		"        started.set()\n"
		"        try:\n"
		"            pl = r.plan(p, algorithm='exact', time_limit=1)\n"
		"            res['ok'] = pl.size > 0\n"
		"            pl.verify()\n"
		"            res['verify'] = 'ok'\n"
		"        except usmp.UsmpError as e:\n"
		"            res['err'] = str(e)\n"
		"    t = threading.Thread(target=work)\n"
		"    t.start()\n"
		"    started.wait()\n"
		"    time.sleep(0.3)\n"
		"    (r if what == 'registry' else p).close()\n"
		"    try:\n"
		"        r.plan(p)\n"
		"        print(what, 'new call ACCEPTED')\n"
		"    except usmp.InvalidError as e:\n"
		"        print(what, 'new call:', e)\n"
		"    if what == 'registry':\n"
		"        try:\n"
		"            print(what, 'query ACCEPTED', len(r.algorithms))\n"
		"        except usmp.InvalidError as e:\n"
		"            print(what, 'query:', e)\n"
		"    t.join()\n"
		"    print(what, 'in flight:', res)\n";
	char *out = NULL;
	int st = test_python(script, 1, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	static const char *const want[] = {
		"registry new call: registry is closed\n",
		"registry query: registry is closed\n",
		"registry in flight: {'ok': True, 'verify': 'ok'}\n",
		"problem new call: problem is closed\n",
		/* the plan arrives; verifying it against the closed problem is
		 * refused */
		"problem in flight: {'ok': True, 'err': 'problem is closed'}\n",
	};
	for (size_t k = 0; k < sizeof want / sizeof *want; k++)
		cr_assert(strstr(out, want[k]), "missing %s in:\n%s", want[k], out);
	free(out);
}

/* ---- a heuristic that plans overlap rules as conflicts -------------------- */

/* greedy_by_size and hill_climb lack the overlap-rules capability and plan
 * a rule's pair as a plain conflict; on a pool only the rule lets the pair
 * fit, their failure said `buffer "y" (8 bytes) fits in none of its 1
 * candidate pool(s)` and `try -a exact`, with no word of the rule it had
 * set aside (y fits: it is the rule that was not honoured). The message
 * now says so and names the algorithms that honour rules. */
Test(redteam7, a_heuristic_failing_with_rules_as_conflicts_says_so)
{
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"b\", \"size_limit\": 8}],"
		" \"buffers\": [{\"name\": \"y\", \"size\": 8, \"live\": [0, 2]},"
		" {\"name\": \"z\", \"size\": 8, \"live\": [1, 3]}],"
		" \"overlaps\": [{\"src\": \"y\", \"dst\": \"z\"}]}";
	char *path = test_write_tmp(".json", json);
	static const char *const algos[] = {"greedy_by_size", "hill_climb"};
	for (size_t k = 0; k < 2; k++) {
		char *out = NULL;
		int rc = test_usmp(&out, "plan '%s' -a %s -q -o /dev/null", path,
		                   algos[k]);
		cr_assert_eq(rc, 3, "%s: exit %d: %s", algos[k], rc, out);
		cr_assert(strstr(out, "; it planned the 1 overlap rule as a plain "
		                      "conflict (it lacks the overlap-rules "
		                      "capability; first_fit, best_fit, exact and "
		                      "auto honour rules); the lower bound (8)"),
		          "%s: %s", algos[k], out);
		free(out);
	}
	/* first_fit honours the rule and plans it in 8 bytes */
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "plan '%s' -a first_fit -q -o /dev/null",
	                       path), 0, "%s", out);
	free(out);
	remove(path);
	free(path);
}
