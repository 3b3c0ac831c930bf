/* test_verify.c — the verifier: each kind of violation caught and named, rule
 * boundaries to the byte, and agreement with an all-pairs brute force. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rule_schedule.h"
#include "support.h"

typedef struct fixture {
	usmp_problem *p;
	usmp__view_store s;
	usmp_placement pl[16];
	char *msg;
} fixture;

static void fx_view(fixture *f)
{
	char *msg = NULL;
	cr_assert_eq(usmp__problem_prepare(f->p), 0, "%s", usmp_problem_error(f->p));
	cr_assert_eq(usmp__view_build(f->p, NULL, 0, &f->s, &msg), USMP_OK, "%s",
	             msg ? msg : "");
	usmp__free_msg(&msg);
}

static void fx_place(fixture *f, uint32_t b, uint32_t pool, uint64_t offset)
{
	f->pl[b].pool = pool;
	f->pl[b].reserved = 0;
	f->pl[b].offset = offset;
}

static int fx_verify(fixture *f)
{
	usmp__free_msg(&f->msg);
	return usmp__verify(&f->s.view, f->pl, &f->msg);
}

static void fx_finish(fixture *f)
{
	usmp__free_msg(&f->msg);
	usmp__view_finish(&f->s);
	usmp_problem_destroy(f->p);
}

static void expect_invalid(fixture *f, const char *needle)
{
	cr_assert_eq(fx_verify(f), USMP_ERR_INVALID_PLAN, "accepted; want \"%s\"",
	             needle);
	cr_assert_not_null(f->msg);
	cr_assert(strstr(f->msg, needle), "message \"%s\" lacks \"%s\"", f->msg,
	          needle);
}

static void expect_valid(fixture *f)
{
	cr_assert_eq(fx_verify(f), USMP_OK, "rejected: %s", f->msg ? f->msg : "");
}

/* sram (limit 64, alignment 4) and dram (unbounded); a, b live together,
 * c alone later. */
static void basic(fixture *f)
{
	memset(f, 0, sizeof *f);
	f->p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(f->p, "sram", 64, 4, NULL), 0);
	cr_assert_eq(usmp_problem_add_pool(f->p, "dram", USMP_UNBOUNDED, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f->p, "a", 16, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f->p, "b", 16, 8, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f->p, "c", 32, 1, NULL), 0);
	cr_assert_eq(usmp_problem_set_live(f->p, 0, 0, 2), 0);
	cr_assert_eq(usmp_problem_set_live(f->p, 1, 1, 3), 0);
	cr_assert_eq(usmp_problem_set_live(f->p, 2, 3, 5), 0);
	cr_assert_eq(usmp_problem_add_candidate(f->p, 1, 0), 0); /* b: sram only */
	fx_view(f);
	fx_place(f, 0, 0, 0);
	fx_place(f, 1, 0, 16);
	fx_place(f, 2, 0, 0);
}

Test(verify, accepts_a_valid_plan)
{
	fixture f;
	basic(&f);
	expect_valid(&f);
	fx_finish(&f);
}

Test(verify, rejects_one_byte_overlap)
{
	fixture f;
	basic(&f);
	fx_place(&f, 0, 0, 4); /* a at [4, 20) meets b at [16, 32) */
	expect_invalid(&f, "buffers \"a\" and \"b\" overlap in pool \"sram\" at "
	                   "bytes [16, 20) while both are live");
	f.s.buffers[0].size = 13; /* [4, 17): one byte into b */
	expect_invalid(&f, "at bytes [16, 17) while both are live");
	f.s.buffers[0].size = 12; /* [4, 16): touching is fine */
	expect_valid(&f);
	fx_finish(&f);
}

Test(verify, touching_live_ranges_do_not_conflict)
{
	fixture f;
	basic(&f);
	fx_place(&f, 2, 0, 16); /* c [3,5) over b's bytes; b ends at 3 */
	expect_valid(&f);
	fx_finish(&f);
}

Test(verify, rejects_a_pool_outside_the_candidates)
{
	fixture f;
	basic(&f);
	fx_place(&f, 1, 1, 16);
	expect_invalid(&f, "buffer \"b\": pool \"dram\" is not among its candidate pools");
	fx_finish(&f);
}

Test(verify, rejects_a_missing_or_unknown_pool)
{
	fixture f;
	basic(&f);
	fx_place(&f, 2, USMP_NO_POOL, 0);
	expect_invalid(&f, "buffer \"c\" has no pool");
	fx_place(&f, 2, 7, 0);
	expect_invalid(&f, "buffer \"c\": pool index 7 does not exist");
	fx_finish(&f);
}

Test(verify, rejects_misalignment_of_buffer_and_of_pool)
{
	fixture f;
	basic(&f);
	fx_place(&f, 1, 0, 20); /* b needs 8 */
	expect_invalid(&f, "buffer \"b\": offset 20 is not a multiple of its alignment 8");
	fx_place(&f, 1, 0, 16);
	fx_place(&f, 2, 0, 2); /* c needs 1, sram 4 */
	expect_invalid(&f, "buffer \"c\": offset 2 is not a multiple of its "
	                   "alignment 4 in pool \"sram\"");
	fx_place(&f, 2, 1, 3); /* dram: alignment 1, fine */
	expect_valid(&f);
	fx_finish(&f);
}

Test(verify, rejects_a_buffer_over_the_pool_limit)
{
	fixture f;
	basic(&f);
	fx_place(&f, 2, 0, 32); /* [32, 64) just fits */
	expect_valid(&f);
	fx_place(&f, 2, 0, 36);
	expect_invalid(&f, "buffer \"c\" at bytes [36, 68) exceeds the size limit "
	                   "64 of pool \"sram\"");
	fx_place(&f, 2, 1, UINT64_MAX - 16);
	expect_invalid(&f, "overflows");
	fx_finish(&f);
}

Test(verify, rejects_a_moved_fixed_buffer)
{
	fixture f;
	memset(&f, 0, sizeof f);
	f.p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(f.p, "sram", 64, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_pool(f.p, "dram", 64, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f.p, "io", 8, 1, NULL), 0);
	cr_assert_eq(usmp_problem_set_fixed(f.p, 0, 1, 24), 0);
	fx_view(&f);
	fx_place(&f, 0, 1, 24);
	expect_valid(&f);
	fx_place(&f, 0, 1, 16);
	expect_invalid(&f, "buffer \"io\" is fixed at offset 24 in pool \"dram\" "
	                   "but placed at offset 16 in pool \"dram\"");
	fx_place(&f, 0, 0, 24);
	expect_invalid(&f, "placed at offset 24 in pool \"sram\"");
	fx_finish(&f);
}

Test(verify, rejects_overlap_across_an_explicit_edge)
{
	fixture f;
	memset(&f, 0, sizeof f);
	f.p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(f.p, "sram", 64, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_pool(f.p, "dram", 64, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f.p, "x", 8, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f.p, "y", 8, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f.p, "z", 8, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_conflict(f.p, 2, 0), 0);
	fx_view(&f);
	fx_place(&f, 0, 0, 0);
	fx_place(&f, 1, 0, 0); /* no conflict with x: may share */
	fx_place(&f, 2, 0, 7);
	expect_invalid(&f, "buffers \"x\" and \"z\" overlap in pool \"sram\" at "
	                   "bytes [7, 8) and are declared conflicting");
	fx_place(&f, 2, 1, 0); /* another pool */
	expect_valid(&f);
	fx_place(&f, 2, 0, 8);
	expect_valid(&f);
	fx_finish(&f);
}

/* src "in" [0,2) 100 bytes, dst "out" [1,3) 100 bytes, rule lead L. */
static void rule_fixture(fixture *f, int64_t lead)
{
	memset(f, 0, sizeof *f);
	f->p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(f->p, "sram", USMP_UNBOUNDED, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f->p, "in", 100, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f->p, "out", 100, 1, NULL), 0);
	cr_assert_eq(usmp_problem_set_live(f->p, 0, 0, 2), 0);
	cr_assert_eq(usmp_problem_set_live(f->p, 1, 1, 3), 0);
	cr_assert_eq(usmp_problem_add_overlap(f->p, 0, 1, lead), 0);
	fx_view(f);
}

Test(verify, overlap_rule_in_place_and_below)
{
	fixture f;
	rule_fixture(&f, 0);
	fx_place(&f, 0, 0, 50);
	fx_place(&f, 1, 0, 50); /* fully in place */
	expect_valid(&f);
	fx_place(&f, 1, 0, 10); /* output starting lower */
	expect_valid(&f);
	fx_place(&f, 1, 0, 51); /* one byte ahead: broken */
	expect_invalid(&f, "buffers \"in\" and \"out\" overlap in pool \"sram\" at "
	                   "bytes [51, 150) while both are live, and their overlap "
	                   "rule needs offset(\"out\") 51 <= offset(\"in\") 50 + "
	                   "max_lead 0");
	fx_finish(&f);
}

Test(verify, negative_max_lead_broken_by_one_byte)
{
	fixture f;
	rule_fixture(&f, -16);
	fx_place(&f, 0, 0, 40);
	fx_place(&f, 1, 0, 24); /* 24 <= 40 - 16 */
	expect_valid(&f);
	fx_place(&f, 1, 0, 25);
	expect_invalid(&f, "offset(\"out\") 25 <= offset(\"in\") 40 + max_lead -16");
	/* Far enough apart, no rule needed at all. */
	fx_place(&f, 1, 0, 140);
	expect_valid(&f);
	fx_place(&f, 1, 0, 0);
	fx_place(&f, 0, 0, 100);
	expect_valid(&f);
	fx_finish(&f);
}

Test(verify, rule_applies_in_its_own_direction_only)
{
	fixture f;
	rule_fixture(&f, 0);
	/* in above out is what the rule allows; out above in is not. */
	fx_place(&f, 0, 0, 60);
	fx_place(&f, 1, 0, 40);
	expect_valid(&f);
	fx_place(&f, 0, 0, 40);
	fx_place(&f, 1, 0, 60);
	expect_invalid(&f, "rule needs offset(\"out\") 60 <= offset(\"in\") 40 + "
	                   "max_lead 0");
	fx_finish(&f);

	/* Unless a rule the other way says so. A rule each way fits a schedule
	 * only when each buffer is born at the other's last read: both alive
	 * at one step alone. First the reverse rule by itself. */
	memset(&f, 0, sizeof f);
	f.p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(f.p, "sram", USMP_UNBOUNDED, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f.p, "in", 100, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f.p, "out", 100, 1, NULL), 0);
	cr_assert_eq(usmp_problem_set_live(f.p, 0, 4, 5), 0);
	cr_assert_eq(usmp_problem_set_live(f.p, 1, 4, 5), 0);
	cr_assert_eq(usmp_problem_add_overlap(f.p, 1, 0, 20), 0);
	fx_view(&f);
	fx_place(&f, 0, 0, 40);
	fx_place(&f, 1, 0, 60);
	expect_valid(&f); /* offset(in) 40 <= offset(out) 60 + 20 */
	fx_place(&f, 0, 0, 81);
	expect_invalid(&f, "rule needs offset(\"in\") 81 <= offset(\"out\") 60 + "
	                   "max_lead 20");
	/* A rule in -> out as well would close a cycle: no schedule has each
	 * buffer written by the op that reads the other, so it is refused. */
	usmp__view_finish(&f.s);
	cr_assert_eq(usmp_problem_add_overlap(f.p, 0, 1, 0), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(f.p), 0);
	cr_assert_str_eq(usmp_problem_error(f.p),
	                 "overlaps[1]: rule \"in\" -> \"out\" closes a cycle of "
	                 "overlap rules: \"out\" -> \"in\" -> \"out\"");
	usmp__free_msg(&f.msg);
	usmp_problem_destroy(f.p);
}

Test(verify, rule_also_allows_an_explicit_edge_pair)
{
	fixture f;
	memset(&f, 0, sizeof f);
	f.p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_buffer(f.p, "u", 32, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(f.p, "w", 32, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_conflict(f.p, 0, 1), 0);
	cr_assert_eq(usmp_problem_add_overlap(f.p, 0, 1, 4), 0);
	fx_view(&f);
	fx_place(&f, 0, 0, 0);
	fx_place(&f, 1, 0, 4);
	expect_valid(&f);
	fx_place(&f, 1, 0, 5);
	expect_invalid(&f, "and are declared conflicting, and their overlap rule");
	fx_finish(&f);
}

Test(verify, rule_with_contradicting_schedule_is_refused_as_input)
{
	/* "b1" begins while "b0" still has reads to come: no single streaming
	 * op writes b1 over b0, so the rule is refused before any plan. */
	usmp_problem *p = usmp_problem_create();
	uint32_t b0, b1, io;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", USMP_UNBOUNDED, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "b0", 64, 1, &b0), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "b1", 64, 1, &b1), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "io", 8, 1, &io), 0);
	cr_assert_eq(usmp_problem_set_live(p, b0, 0, 10), 0);
	cr_assert_eq(usmp_problem_set_live(p, b1, 1, 12), 0);
	cr_assert_eq(usmp_problem_add_overlap(p, b0, b1, 0), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 0);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "overlaps[0]: rule \"b0\" -> \"b1\": \"b1\" must be produced by "
	                 "the last reader of \"b0\" (it begins at step 1; \"b0\" is "
	                 "last read at step 9)");
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 0);
	cr_assert(strstr(usmp_problem_error(p), "rule \"b0\" -> \"b1\""),
	          "%s", usmp_problem_error(p));
	/* Born one step after the last read is no better. */
	cr_assert_eq(usmp_problem_set_live(p, b1, 10, 12), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 0);
	cr_assert(strstr(usmp_problem_error(p), "it begins at step 10; \"b0\" is "
	                                        "last read at step 9"),
	          "%s", usmp_problem_error(p));
	/* Born at the last read: accepted, and the pair shares in place. */
	cr_assert_eq(usmp_problem_set_live(p, b1, 9, 12), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 64);
	/* A rule to a buffer without a live range needs no schedule. */
	cr_assert_eq(usmp_problem_add_overlap(p, io, b0, 0), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1, "%s", usmp_problem_error(p));
	/* A rule back from b1 to b0 closes a cycle (and b0 began long before). */
	cr_assert_eq(usmp_problem_add_overlap(p, b1, b0, 0), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 0);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "overlaps[2]: rule \"b1\" -> \"b0\" closes a cycle of "
	                 "overlap rules: \"b0\" -> \"b1\" -> \"b0\"");
	usmp_problem_destroy(p);
}

/* ---- against brute force -------------------------------------------------- */

/* All pairs, straight from the definition. *by_rule tells whether some
 * overlap was allowed only by a rule. */
static bool brute_valid(const usmp_view *v, const usmp_placement *pl,
                        bool *by_rule)
{
	*by_rule = false;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (pl[b].pool >= v->pool_count)
			return false;
		bool cand = false;
		for (uint32_t c = 0; c < r->candidate_count; c++)
			cand |= v->candidates[r->candidate_start + c] == pl[b].pool;
		if (!cand)
			return false;
		if (pl[b].offset % usmp_buffer_alignment(v, b, pl[b].pool))
			return false;
		if (pl[b].offset + r->size > v->pools[pl[b].pool].size_limit)
			return false;
		if ((r->flags & USMP_BUFFER_FIXED) &&
		    (pl[b].pool != r->fixed_pool || pl[b].offset != r->fixed_offset))
			return false;
	}
	for (uint32_t a = 0; a < v->buffer_count; a++)
		for (uint32_t b = a + 1; b < v->buffer_count; b++) {
			bool conflict = usmp_live_overlap(v, a, b);
			for (uint64_t i = v->conflict_start[a];
			     i < v->conflict_start[a + 1]; i++)
				conflict |= v->conflict_adj[i] == b;
			if (!conflict || pl[a].pool != pl[b].pool)
				continue;
			int64_t oa = (int64_t)pl[a].offset, ob = (int64_t)pl[b].offset;
			if (oa >= ob + (int64_t)v->buffers[b].size ||
			    ob >= oa + (int64_t)v->buffers[a].size)
				continue;
			bool allowed = false;
			for (uint64_t r = 0; r < v->overlap_count; r++) {
				const usmp_overlap_rec *o = &v->overlaps[r];
				if (o->src == a && o->dst == b && ob <= oa + o->max_lead)
					allowed = true;
				if (o->src == b && o->dst == a && oa <= ob + o->max_lead)
					allowed = true;
			}
			if (!allowed)
				return false;
			*by_rule = true;
		}
	return true;
}

/* What the verifier said of the placements a brute-force suite tried. */
typedef struct tally {
	int valid, invalid, valid_by_rule;
} tally;

/* The verifier must accept pl exactly when brute_valid does, and say why
 * when it rejects; counted in t. */
static void judge(const usmp_view *v, const usmp_placement *pl, int round,
                  int trial, tally *t)
{
	bool by_rule;
	bool want = brute_valid(v, pl, &by_rule);
	t->valid_by_rule += want && by_rule;
	char *msg = NULL;
	int rc = usmp__verify(v, pl, &msg);
	cr_assert_eq(rc == USMP_OK, want,
	             "round %d trial %d: verifier %s (%s), brute force %s",
	             round, trial, rc == USMP_OK ? "accepts" : "rejects",
	             msg ? msg : "", want ? "accepts" : "rejects");
	cr_assert(rc == USMP_OK || (msg && *msg));
	usmp__free_msg(&msg);
	if (want)
		t->valid++;
	else
		t->invalid++;
}

Test(verify, agrees_with_all_pairs_brute_force)
{
	uint64_t rs = 31;
	int shared = 0;
	tally t = {0, 0, 0};
	for (int round = 0; round < 150; round++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t pools = (uint32_t)test_rand_range(&rs, 1, 3);
		for (uint32_t q = 0; q < pools; q++) {
			char name[16];
			snprintf(name, sizeof name, "q%u", q);
			cr_assert_eq(usmp_problem_add_pool(p, name,
			                                   test_rand_range(&rs, 40, 120),
			                                   q == 1 ? 2 : 1, NULL), 0);
		}
		uint32_t n = (uint32_t)test_rand_range(&rs, 1, 14);
		for (uint32_t i = 0; i < n; i++) {
			char name[16];
			snprintf(name, sizeof name, "b%u", i);
			cr_assert_eq(usmp_problem_add_buffer(p, name,
			                                     test_rand_range(&rs, 1, 24),
			                                     test_rand(&rs) % 4 ? 1 : 2,
			                                     NULL), 0);
			if (test_rand(&rs) % 6) {
				int64_t b = (int64_t)test_rand_range(&rs, 0, 8);
				cr_assert_eq(usmp_problem_set_live(
					             p, i, b, b + (int64_t)test_rand_range(&rs, 1, 4)), 0);
			}
			if (pools > 1 && test_rand(&rs) % 3 == 0)
				cr_assert_eq(usmp_problem_add_candidate(
					             p, i, (uint32_t)test_rand_range(&rs, 0, pools - 1)), 0);
		}
		for (uint32_t e = 0; n > 1 && e < n; e++) {
			uint32_t a = (uint32_t)test_rand_range(&rs, 0, n - 1);
			uint32_t b = (uint32_t)test_rand_range(&rs, 0, n - 1);
			if (a == b)
				continue;
			if (test_rand(&rs) % 3 == 0)
				cr_assert_eq(usmp_problem_add_conflict(p, a, b), 0);
			else if (round % 3 && /* a third of the problems without rules */
			         add_fitting_rule(p, a, b,
			                          (int64_t)test_rand_range(&rs, 0, 30) - 15))
				shared += rule_pair_live_together(p, a, b);
		}
		fixture f = { .p = p };
		fx_view(&f);
		const usmp_view *v = &f.s.view;
		usmp_placement *pl = calloc(n, sizeof *pl);
		for (int trial = 0; trial < 40; trial++) {
			/* Mostly plausible placements, so both outcomes are common. */
			for (uint32_t i = 0; i < n; i++) {
				const usmp_buffer_rec *r = &v->buffers[i];
				pl[i].pool = v->candidates[r->candidate_start +
				                           test_rand(&rs) % r->candidate_count];
				uint64_t a = usmp_buffer_alignment(v, i, pl[i].pool);
				pl[i].offset = test_rand_range(&rs, 0, 30) * a;
				if (test_rand(&rs) % 50 == 0)
					pl[i].offset += 1;
				if (test_rand(&rs) % 200 == 0)
					pl[i].pool = (uint32_t)test_rand_range(&rs, 0, pools - 1);
			}
			judge(v, pl, round, trial, &t);
		}
		free(pl);
		fx_finish(&f);
	}
	/* Both outcomes were exercised in earnest. */
	cr_assert_geq(t.valid, 300, "only %d valid placements", t.valid);
	cr_assert_geq(t.invalid, 300, "only %d invalid placements", t.invalid);
	/* Rules joined buffers alive together and were needed by valid ones. */
	cr_assert_geq(shared, 200, "only %d rules join buffers alive together",
	              shared);
	cr_assert_geq(t.valid_by_rule, 100, "only %d valid placements need a rule",
	              t.valid_by_rule);
}

Test(verify, agrees_with_brute_force_on_larger_perturbed_plans)
{
	/* A stacked plan (always valid), then a few buffers moved: onto another
	 * buffer, next to it, or where a rule partner allows. */
	uint64_t rs = 32;
	int shared = 0;
	tally t = {0, 0, 0};
	for (int round = 0; round < 60; round++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t pools = (uint32_t)test_rand_range(&rs, 1, 2);
		for (uint32_t q = 0; q < pools; q++)
			cr_assert_eq(usmp_problem_add_pool(p, q ? "q1" : "q0", USMP_UNBOUNDED,
			                                   1, NULL), 0);
		uint32_t n = (uint32_t)test_rand_range(&rs, 20, 250);
		for (uint32_t i = 0; i < n; i++) {
			char name[16];
			snprintf(name, sizeof name, "b%u", i);
			cr_assert_eq(usmp_problem_add_buffer(p, name,
			                                     test_rand_range(&rs, 1, 64), 1,
			                                     NULL), 0);
			int64_t b = (int64_t)test_rand_range(&rs, 0, 60);
			if (test_rand(&rs) % 10)
				cr_assert_eq(usmp_problem_set_live(
					             p, i, b, b + (int64_t)test_rand_range(&rs, 1, 8)), 0);
		}
		for (uint32_t e = 0; e < n; e++) {
			uint32_t a = (uint32_t)test_rand_range(&rs, 0, n - 1);
			uint32_t b = (uint32_t)test_rand_range(&rs, 0, n - 1);
			if (a == b)
				continue;
			if (e % 3 == 0)
				cr_assert_eq(usmp_problem_add_conflict(p, a, b), 0);
			else if (round % 2 &&
			         add_fitting_rule(p, a, b,
			                          (int64_t)test_rand_range(&rs, 0, 40) - 20))
				shared += rule_pair_live_together(p, a, b);
		}
		fixture f = { .p = p };
		fx_view(&f);
		const usmp_view *v = &f.s.view;
		usmp_placement *pl = calloc(n, sizeof *pl);
		for (int trial = 0; trial < 20; trial++) {
			uint64_t top[2] = { 0, 0 };
			for (uint32_t i = 0; i < n; i++) {
				pl[i].pool = (uint32_t)(test_rand(&rs) % pools);
				pl[i].offset = top[pl[i].pool];
				top[pl[i].pool] += v->buffers[i].size;
			}
			uint32_t moves = (uint32_t)test_rand_range(&rs, 0, 3);
			for (uint32_t k = 0; k < moves; k++) {
				uint32_t i = (uint32_t)test_rand_range(&rs, 0, n - 1);
				uint32_t j = (uint32_t)test_rand_range(&rs, 0, n - 1);
				if (v->overlap_count && test_rand(&rs) % 2) {
					/* A rule's dst onto its src, at the rule's limit or
					 * one byte past it. */
					const usmp_overlap_rec *o =
						&v->overlaps[test_rand(&rs) % v->overlap_count];
					i = o->dst;
					j = o->src;
					pl[i].pool = pl[j].pool;
					int64_t at = (int64_t)pl[j].offset + o->max_lead +
					             (int64_t)test_rand_range(&rs, 0, 1);
					pl[i].offset = at < 0 ? 0 : (uint64_t)at;
					continue;
				}
				pl[i].pool = pl[j].pool;
				int64_t at = (int64_t)pl[j].offset;
				switch (test_rand(&rs) % 4) {
				case 0: at += (int64_t)v->buffers[j].size; break;
				case 1: at += (int64_t)v->buffers[j].size - 1; break;
				case 2: at -= (int64_t)test_rand_range(&rs, 0, 20); break;
				default: at += (int64_t)test_rand_range(&rs, 0, 20); break;
				}
				pl[i].offset = at < 0 ? 0 : (uint64_t)at;
			}
			judge(v, pl, round, trial, &t);
		}
		free(pl);
		fx_finish(&f);
	}
	cr_assert_geq(t.valid, 200, "only %d valid plans", t.valid);
	cr_assert_geq(t.invalid, 200, "only %d invalid plans", t.invalid);
	cr_assert_geq(shared, 1400, "only %d rules join buffers alive together",
	              shared);
	cr_assert_geq(t.valid_by_rule, 40, "only %d valid plans need a rule",
	              t.valid_by_rule);
}

Test(verify, handles_many_buffers_in_one_sweep)
{
	/* 200,000 buffers in a staircase: each overlaps its neighbours in time
	 * and is stacked on two slots; then one byte of one is moved. */
	enum { N = 200000 };
	usmp_buffer_rec *b = calloc(N, sizeof *b);
	usmp_placement *pl = calloc(N, sizeof *pl);
	usmp_pool_rec pool = { "big", USMP_UNBOUNDED, 1 };
	uint32_t cand = 0;
	uint64_t *start = calloc(N + 1, sizeof *start);
	for (uint32_t i = 0; i < N; i++) {
		b[i].name = "s";
		b[i].size = 64;
		b[i].alignment = 1;
		b[i].flags = USMP_BUFFER_LIVE;
		b[i].begin = i;
		b[i].end = i + 2;
		b[i].candidate_count = 1;
		pl[i].offset = (i % 2) * 64;
	}
	usmp_view v = { .struct_size = sizeof v, .pool_count = 1, .buffer_count = N,
	                .pools = &pool, .buffers = b, .candidates = &cand,
	                .conflict_start = start, .target = "" };
	char *msg = NULL;
	cr_assert_eq(usmp__verify(&v, pl, &msg), USMP_OK, "%s", msg ? msg : "");
	pl[N / 2].offset += 1; /* [1, 65) meets its neighbours at [64, 128) */
	cr_assert_eq(usmp__verify(&v, pl, &msg), USMP_ERR_INVALID_PLAN);
	usmp__free_msg(&msg);
	free(b);
	free(pl);
	free(start);
}
