/* test_params.c — parameter signatures, typed values with their boundaries,
 * knob sets and their error messages (src/params.c). */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* Parse `text`, expecting failure; returns the message (caller frees). */
static char *sig_error(const char *text)
{
	usmp__signature sig;
	char *msg = NULL;
	int rc = usmp__signature_parse(text, &sig, &msg);
	cr_assert_neq(rc, USMP_OK, "signature \"%s\" was accepted", text);
	cr_assert_not_null(msg);
	return msg;
}

static void assert_contains(const char *hay, const char *needle)
{
	cr_assert_not_null(hay);
	cr_assert(strstr(hay, needle) != NULL, "\"%s\" does not contain \"%s\"",
	          hay, needle);
}

/* ---- signatures --------------------------------------------------------- */

Test(signature, parses_every_type_with_defaults)
{
	usmp__signature sig;
	char *msg = NULL;
	int rc = usmp__signature_parse(
		"b:bool=true i:i32=-5 u:u32=7 l:i64=-9000000000 q:u64=18446744073709551615 "
		"d:f64=2.5 s:str=size",
		&sig, &msg);
	cr_assert_eq(rc, USMP_OK, "%s", msg ? msg : "");
	cr_assert_eq(sig.count, 7);
	cr_assert_str_eq(sig.params[0].name, "b");
	cr_assert_eq(sig.params[0].type, USMP_PARAM_BOOL);
	cr_assert_eq(sig.params[0].default_value.b, true);
	cr_assert_eq(sig.params[1].type, USMP_PARAM_I32);
	cr_assert_eq(sig.params[1].default_value.i32, -5);
	cr_assert_eq(sig.params[2].default_value.u32, 7u);
	cr_assert_eq(sig.params[3].default_value.i64, -9000000000ll);
	cr_assert_eq(sig.params[4].default_value.u64, UINT64_MAX);
	cr_assert_eq(sig.params[5].default_value.f64, 2.5);
	cr_assert_eq(sig.params[6].type, USMP_PARAM_STR);
	cr_assert_str_eq(sig.params[6].default_value.str, "size");
	cr_assert_str_eq(sig.params[6].default_text, "size");
	cr_assert_str_eq(sig.params[6].help, "");
	usmp__signature_finish(&sig);
	usmp__free_msg(&msg);
}

Test(signature, empty_null_and_blank_have_no_knobs)
{
	const char *texts[] = {NULL, "", "   "};
	for (int i = 0; i < 3; i++) {
		usmp__signature sig;
		char *msg = NULL;
		cr_assert_eq(usmp__signature_parse(texts[i], &sig, &msg), USMP_OK);
		cr_assert_eq(sig.count, 0);
		usmp__signature_finish(&sig);
	}
}

Test(signature, tolerates_repeated_spaces_and_empty_str_default)
{
	usmp__signature sig;
	char *msg = NULL;
	cr_assert_eq(usmp__signature_parse("  a:u32=1   name:str=  ", &sig, &msg),
	             USMP_OK);
	cr_assert_eq(sig.count, 2);
	cr_assert_str_eq(sig.params[1].name, "name");
	cr_assert_str_eq(sig.params[1].default_value.str, "");
	usmp__signature_finish(&sig);
}

Test(signature, str_default_may_contain_equals_and_colon)
{
	usmp__signature sig;
	char *msg = NULL;
	cr_assert_eq(usmp__signature_parse("expr:str=a=b:c", &sig, &msg), USMP_OK);
	cr_assert_str_eq(sig.params[0].default_value.str, "a=b:c");
	usmp__signature_finish(&sig);
}

Test(signature, rejects_unknown_type_naming_it)
{
	char *m = sig_error("seed:u65=0");
	assert_contains(m, "unknown type \"u65\"");
	assert_contains(m, "seed:u65=0");
	usmp__free_msg(&m);
}

Test(signature, rejects_missing_type_or_default)
{
	const char *bad[] = {"seed=0", "seed:u64", "seed", ":u64=0", "seed:=0"};
	const char *why[] = {"expected name:type=default", "expected name:type=default",
	                     "expected name:type=default", "empty name",
	                     "unknown type \"\""};
	for (int i = 0; i < 5; i++) {
		char *m = sig_error(bad[i]);
		assert_contains(m, why[i]);
		usmp__free_msg(&m);
	}
}

Test(signature, rejects_bad_names)
{
	const char *bad[] = {"Seed:u64=0", "1x:u64=0", "a-b:u64=0", "a.b:u64=0"};
	for (int i = 0; i < 4; i++) {
		char *m = sig_error(bad[i]);
		assert_contains(m, "bad name");
		usmp__free_msg(&m);
	}
}

Test(signature, rejects_duplicate_names)
{
	char *m = sig_error("a:u32=1 b:u32=2 a:i64=3");
	assert_contains(m, "knob 3 \"a\" is declared twice");
	usmp__free_msg(&m);
}

Test(signature, rejects_defaults_that_do_not_parse)
{
	struct {
		const char *sig, *why;
	} cases[] = {
		{"a:u32=-1", "out of range"},
		{"a:u32=4294967296", "out of range"},
		{"a:bool=maybe", "not a bool"},
		{"a:f64=nan", "not a finite number"},
		{"a:i32=", "empty value"},
		{"a:i64=12k", "junk"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *m = sig_error(cases[i].sig);
		assert_contains(m, cases[i].why);
		assert_contains(m, "default");
		usmp__free_msg(&m);
	}
}

Test(signature, rejects_tabs_and_control_characters)
{
	char *m = sig_error("a:u32=1\tb:u32=2");
	assert_contains(m, "control character");
	usmp__free_msg(&m);
}

Test(signature, rejects_more_than_the_knob_limit)
{
	char text[USMP__MAX_KNOBS * 16 + 32];
	size_t len = 0;
	for (int i = 0; i <= USMP__MAX_KNOBS; i++)
		len += (size_t)sprintf(text + len, "k%d:u32=0 ", i);
	char *m = sig_error(text);
	assert_contains(m, "more than");
	usmp__free_msg(&m);
}

Test(signature, help_lines_attach_to_their_knobs)
{
	usmp__signature sig;
	char *msg = NULL;
	cr_assert_eq(usmp__signature_parse("seed:u64=0 order:str=size limit:f64=0",
	                                   &sig, &msg),
	             USMP_OK);
	usmp__signature_set_help(&sig, "order:   size, area or none\n"
	                               "nosuch: ignored\n"
	                               "seed: random seed");
	cr_assert_str_eq(sig.params[0].help, "random seed");
	cr_assert_str_eq(sig.params[1].help, "size, area or none");
	cr_assert_str_eq(sig.params[2].help, "");
	usmp__signature_finish(&sig);
}

/* ---- values ------------------------------------------------------------- */

static usmp__value ok_value(int type, const char *text)
{
	usmp__value v;
	char *msg = NULL;
	memset(&v, 0, sizeof v);
	int rc = usmp__value_parse(type, text, &v, &msg);
	cr_assert_eq(rc, USMP_OK, "\"%s\" refused: %s", text, msg ? msg : "");
	return v;
}

static void bad_value(int type, const char *text, const char *why)
{
	usmp__value v;
	char *msg = NULL;
	int rc = usmp__value_parse(type, text, &v, &msg);
	cr_assert_eq(rc, USMP_ERR_INVALID, "\"%s\" accepted as %s", text,
	             usmp__param_type_name(type));
	assert_contains(msg, why);
	usmp__free_msg(&msg);
}

Test(value, i32_boundaries)
{
	cr_assert_eq(ok_value(USMP_PARAM_I32, "-2147483648").i32, INT32_MIN);
	cr_assert_eq(ok_value(USMP_PARAM_I32, "2147483647").i32, INT32_MAX);
	cr_assert_eq(ok_value(USMP_PARAM_I32, "+12").i32, 12);
	cr_assert_eq(ok_value(USMP_PARAM_I32, "-0x10").i32, -16);
	bad_value(USMP_PARAM_I32, "2147483648", "out of range");
	bad_value(USMP_PARAM_I32, "-2147483649", "out of range");
	bad_value(USMP_PARAM_I32, "99999999999999999999999", "out of range");
}

Test(value, u32_boundaries_and_negatives)
{
	cr_assert_eq(ok_value(USMP_PARAM_U32, "0").u32, 0u);
	cr_assert_eq(ok_value(USMP_PARAM_U32, "4294967295").u32, UINT32_MAX);
	cr_assert_eq(ok_value(USMP_PARAM_U32, "0xffffffff").u32, UINT32_MAX);
	bad_value(USMP_PARAM_U32, "4294967296", "out of range");
	bad_value(USMP_PARAM_U32, "-1", "out of range");
	bad_value(USMP_PARAM_U32, "-0", "out of range");
	/* strtoul would wrap this to a huge value */
	bad_value(USMP_PARAM_U32, "-18446744073709551615", "out of range");
}

Test(value, i64_boundaries)
{
	cr_assert_eq(ok_value(USMP_PARAM_I64, "-9223372036854775808").i64, INT64_MIN);
	cr_assert_eq(ok_value(USMP_PARAM_I64, "9223372036854775807").i64, INT64_MAX);
	cr_assert_eq(ok_value(USMP_PARAM_I64, "-0").i64, 0);
	bad_value(USMP_PARAM_I64, "9223372036854775808", "out of range");
	bad_value(USMP_PARAM_I64, "-9223372036854775809", "out of range");
}

Test(value, u64_boundaries)
{
	cr_assert_eq(ok_value(USMP_PARAM_U64, "18446744073709551615").u64, UINT64_MAX);
	cr_assert_eq(ok_value(USMP_PARAM_U64, "0xFFFFFFFFFFFFFFFF").u64, UINT64_MAX);
	bad_value(USMP_PARAM_U64, "18446744073709551616", "out of range");
	bad_value(USMP_PARAM_U64, "-1", "out of range");
}

Test(value, integers_refuse_junk_spaces_and_empty)
{
	const int types[] = {USMP_PARAM_I32, USMP_PARAM_U32, USMP_PARAM_I64,
	                     USMP_PARAM_U64};
	for (int t = 0; t < 4; t++) {
		bad_value(types[t], "12k", "junk");
		bad_value(types[t], " 12", "not an integer");
		bad_value(types[t], "12 ", "junk");
		bad_value(types[t], "", "empty");
		bad_value(types[t], "1.5", "junk");
		bad_value(types[t], "0x", "not an integer");
		bad_value(types[t], "+-1", "not an integer");
		bad_value(types[t], "ten", "not an integer");
	}
}

Test(value, f64_accepts_finite_and_keeps_negative_zero)
{
	cr_assert_eq(ok_value(USMP_PARAM_F64, "0.5").f64, 0.5);
	cr_assert_eq(ok_value(USMP_PARAM_F64, "1e300").f64, 1e300);
	cr_assert_eq(ok_value(USMP_PARAM_F64, ".25").f64, 0.25);
	cr_assert_eq(ok_value(USMP_PARAM_F64, "-2").f64, -2.0);
	double z = ok_value(USMP_PARAM_F64, "-0.0").f64;
	cr_assert(z == 0.0 && signbit(z));
	/* underflow rounds towards zero but is a finite number */
	cr_assert(ok_value(USMP_PARAM_F64, "1e-400").f64 >= 0.0);
}

Test(value, f64_refuses_nan_inf_overflow_and_junk)
{
	bad_value(USMP_PARAM_F64, "nan", "not a finite number");
	bad_value(USMP_PARAM_F64, "inf", "not a finite number");
	bad_value(USMP_PARAM_F64, "-infinity", "not a finite number");
	bad_value(USMP_PARAM_F64, "1e999", "out of range");
	bad_value(USMP_PARAM_F64, "-1e999", "out of range");
	bad_value(USMP_PARAM_F64, "1.5x", "junk");
	bad_value(USMP_PARAM_F64, " 1", "not a finite number");
	bad_value(USMP_PARAM_F64, "", "empty");
}

Test(value, bool_spellings)
{
	const char *yes[] = {"true", "1", "yes", "TRUE", "Yes"};
	const char *no[] = {"false", "0", "no", "False", "NO"};
	for (int i = 0; i < 5; i++) {
		cr_assert_eq(ok_value(USMP_PARAM_BOOL, yes[i]).b, true);
		cr_assert_eq(ok_value(USMP_PARAM_BOOL, no[i]).b, false);
	}
	bad_value(USMP_PARAM_BOOL, "2", "not a bool");
	bad_value(USMP_PARAM_BOOL, "on", "not a bool");
	bad_value(USMP_PARAM_BOOL, "true ", "not a bool");
}

Test(value, str_takes_anything_including_empty)
{
	cr_assert_str_eq(ok_value(USMP_PARAM_STR, "").str, "");
	cr_assert_str_eq(ok_value(USMP_PARAM_STR, "a b=c").str, "a b=c");
}

Test(value, format_reads_back_exactly)
{
	const double ds[] = {0.1, -0.0, 1e300, 5e-324, 2.0 / 3.0, -123.456};
	for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
		usmp__value v = {.f64 = ds[i]};
		char *s = usmp__value_format(USMP_PARAM_F64, &v);
		double back = ok_value(USMP_PARAM_F64, s).f64;
		cr_assert(memcmp(&back, &ds[i], sizeof back) == 0, "%s", s);
		free(s);
	}
	usmp__value v = {.i64 = INT64_MIN};
	char *s = usmp__value_format(USMP_PARAM_I64, &v);
	cr_assert_str_eq(s, "-9223372036854775808");
	free(s);
}

/* ---- knob sets ---------------------------------------------------------- */

static usmp__signature hill_sig(void)
{
	usmp__signature sig;
	char *msg = NULL;
	cr_assert_eq(usmp__signature_parse(
		             "seed:u64=0 attempts:u32=500 time_limit:f64=0 order:str=size",
		             &sig, &msg),
	             USMP_OK);
	return sig;
}

Test(knobs, start_at_defaults_and_describe_them)
{
	usmp__signature sig = hill_sig();
	usmp__knobs k;
	cr_assert_eq(usmp__knobs_init(&k, &sig), USMP_OK);
	cr_assert_eq(k.values[1].u32, 500u);
	char *d = usmp__knobs_describe(&k);
	cr_assert_str_eq(d, "seed=0 attempts=500 time_limit=0 order=size");
	free(d);
	usmp__knobs_finish(&k);
	usmp__signature_finish(&sig);
}

Test(knobs, assignments_override_defaults_and_copy_strings)
{
	usmp__signature sig = hill_sig();
	usmp__knobs k;
	char *msg = NULL;
	char value[] = "order=area";
	cr_assert_eq(usmp__knobs_init(&k, &sig), USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", "seed=7", &msg), USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", value, &msg), USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", "time_limit=0.25", &msg),
	             USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", "order=conflicts", &msg),
	             USMP_OK);
	memset(value, 'x', sizeof value - 1); /* the knob keeps its own copy */
	cr_assert_eq(k.values[0].u64, 7u);
	cr_assert_str_eq(k.values[3].str, "conflicts");
	char *d = usmp__knobs_describe(&k);
	cr_assert_str_eq(d, "seed=7 attempts=500 time_limit=0.25 order=conflicts");
	free(d);
	usmp__knobs_finish(&k);
	usmp__signature_finish(&sig);
}

Test(knobs, unknown_name_is_not_found_and_lists_the_knobs)
{
	usmp__signature sig;
	usmp__knobs k;
	char *msg = NULL;
	cr_assert_eq(usmp__signature_parse("order:str=size", &sig, &msg), USMP_OK);
	cr_assert_eq(usmp__knobs_init(&k, &sig), USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "first_fit", "ordr=area", &msg),
	             USMP_ERR_NOT_FOUND);
	cr_assert_str_eq(msg, "algorithm \"first_fit\" has no knob \"ordr\" "
	                      "(knobs: order)");
	usmp__free_msg(&msg);
	usmp__knobs_finish(&k);
	usmp__signature_finish(&sig);
}

Test(knobs, algorithm_without_knobs_says_so)
{
	usmp__signature sig;
	usmp__knobs k;
	char *msg = NULL;
	cr_assert_eq(usmp__signature_parse("", &sig, &msg), USMP_OK);
	cr_assert_eq(usmp__knobs_init(&k, &sig), USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "plain", "x=1", &msg), USMP_ERR_NOT_FOUND);
	assert_contains(msg, "has no knob \"x\" (it has no knobs)");
	char *d = usmp__knobs_describe(&k);
	cr_assert_str_eq(d, "");
	free(d);
	usmp__free_msg(&msg);
	usmp__knobs_finish(&k);
}

Test(knobs, wrong_type_is_invalid_and_names_knob_algorithm_and_value)
{
	usmp__signature sig = hill_sig();
	usmp__knobs k;
	char *msg = NULL;
	cr_assert_eq(usmp__knobs_init(&k, &sig), USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", "attempts=-3", &msg),
	             USMP_ERR_INVALID);
	assert_contains(msg, "knob \"attempts\" of \"hill_climb\" expects u32, "
	                     "got \"-3\"");
	cr_assert_eq(k.values[1].u32, 500u, "a refused value must not stick");
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", "time_limit=inf", &msg),
	             USMP_ERR_INVALID);
	assert_contains(msg, "expects f64, got \"inf\"");
	usmp__free_msg(&msg);
	usmp__knobs_finish(&k);
	usmp__signature_finish(&sig);
}

Test(knobs, assignment_without_equals_is_invalid)
{
	usmp__signature sig = hill_sig();
	usmp__knobs k;
	char *msg = NULL;
	cr_assert_eq(usmp__knobs_init(&k, &sig), USMP_OK);
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", "seed", &msg),
	             USMP_ERR_INVALID);
	assert_contains(msg, "not key=value");
	cr_assert_eq(usmp__knobs_set(&k, "hill_climb", "=3", &msg),
	             USMP_ERR_INVALID);
	usmp__free_msg(&msg);
	usmp__knobs_finish(&k);
	usmp__signature_finish(&sig);
}
