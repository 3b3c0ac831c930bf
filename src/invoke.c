/* invoke.c — calling an algorithm: one libffi call interface per plugin
 * algorithm, prepared at load from its signature; built-ins called directly. */
#include "host.h"

#include <ffi.h>
#include <stdlib.h>
#include <string.h>

/* The in-process call of the one dispatch path (dispatch.h, dispatch.c). */
#include "dispatch.h"

/* The libffi type of a knob's C argument. C `bool` is passed as an unsigned
 * integer of its own size (one byte on every ABI usmp targets). */
static ffi_type *knob_ffi_type(int type)
{
	switch (type) {
	case USMP_PARAM_BOOL:
		switch (sizeof(bool)) {
		case 1:
			return &ffi_type_uint8;
		case 2:
			return &ffi_type_uint16;
		case 4:
			return &ffi_type_uint32;
		default:
			return NULL;
		}
	case USMP_PARAM_I32:
		return &ffi_type_sint32;
	case USMP_PARAM_U32:
		return &ffi_type_uint32;
	case USMP_PARAM_I64:
		return &ffi_type_sint64;
	case USMP_PARAM_U64:
		return &ffi_type_uint64;
	case USMP_PARAM_F64:
		return &ffi_type_double;
	case USMP_PARAM_STR:
		return &ffi_type_pointer;
	default:
		return NULL;
	}
}

int usmp__invoke_prepare(usmp__algo *a, char **msg)
{
	uint32_t n = a->sig.count;
	ffi_type **types = NULL;
	ffi_cif *cif = NULL;
	ffi_status st;
	int rc;

	a->cif = NULL;
	a->arg_types = NULL;
	if (n > USMP__MAX_KNOBS) {
		usmp__set_msg(msg, "more than %d knobs", USMP__MAX_KNOBS);
		return USMP_ERR_INVALID;
	}
	types = calloc((size_t)n + 3, sizeof *types);
	cif = calloc(1, sizeof *cif);
	if (!types || !cif) {
		usmp__set_msg(msg, "out of memory");
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	/* view, host, out */
	types[0] = &ffi_type_pointer;
	types[1] = &ffi_type_pointer;
	types[2] = &ffi_type_pointer;
	for (uint32_t i = 0; i < n; i++) {
		types[3 + i] = knob_ffi_type(a->sig.params[i].type);
		if (!types[3 + i]) {
			usmp__set_msg(msg, "knob \"%s\" has a type libffi cannot pass",
			              a->sig.params[i].name);
			rc = USMP_ERR_INTERNAL;
			goto fail;
		}
	}
	st = ffi_prep_cif(cif, FFI_DEFAULT_ABI, n + 3, &ffi_type_sint, types);
	if (st != FFI_OK) {
		usmp__set_msg(msg, "libffi cannot prepare the call (status %d)",
		              (int)st);
		rc = USMP_ERR_PLUGIN;
		goto fail;
	}
	a->cif = cif;
	a->arg_types = types;
	return USMP_OK;
fail:
	free(cif);
	free(types);
	return rc;
}

void usmp__invoke_finish(usmp__algo *a)
{
	if (!a)
		return;
	free(a->cif);
	free(a->arg_types);
	a->cif = NULL;
	a->arg_types = NULL;
}

/* Knob values in the layout libffi wants: one pointer per argument, to
 * storage of exactly the argument's C type (the union members sit at
 * offset 0, so &values[i].b is a `bool *`, &values[i].str a `const char **`). */
static int call_plugin(const usmp__algo *a, const usmp__knobs *k,
                       const usmp_view *v, const usmp_host *h,
                       usmp_placement *out)
{
	void *args[3 + USMP__MAX_KNOBS];
	uint32_t n = a->sig.count;
	ffi_arg ret = 0;

	if (!a->cif || !a->fn || n > USMP__MAX_KNOBS)
		return USMP_ERR_INTERNAL;
	args[0] = &v;
	args[1] = &h;
	args[2] = &out;
	for (uint32_t i = 0; i < n; i++) {
		usmp__value *val = &k->values[i];
		switch (a->sig.params[i].type) {
		case USMP_PARAM_BOOL:
			args[3 + i] = &val->b;
			break;
		case USMP_PARAM_I32:
			args[3 + i] = &val->i32;
			break;
		case USMP_PARAM_U32:
			args[3 + i] = &val->u32;
			break;
		case USMP_PARAM_I64:
			args[3 + i] = &val->i64;
			break;
		case USMP_PARAM_U64:
			args[3 + i] = &val->u64;
			break;
		case USMP_PARAM_F64:
			args[3 + i] = &val->f64;
			break;
		case USMP_PARAM_STR:
			if (!val->str)
				val->str = "";
			args[3 + i] = &val->str;
			break;
		default:
			return USMP_ERR_INTERNAL;
		}
	}
	ffi_call((ffi_cif *)a->cif, a->fn, &ret, args);
	/* The return type is int; libffi widens it to ffi_arg. */
	return (int)(ffi_sarg)ret;
}

int usmp__invoke(usmp__call *c)
{
	const usmp__algo *a = c->algo;
	const usmp__knobs *k = c->knobs;
	usmp__knobs defaults = {0};
	int rc;

	if (!a)
		return USMP_ERR_INTERNAL;
	if (!k) {
		rc = usmp__knobs_init(&defaults, &a->sig);
		if (rc != USMP_OK)
			return rc;
		k = &defaults;
	} else if (!k->sig || k->sig->count != a->sig.count ||
	           (a->sig.count && !k->values)) {
		return USMP_ERR_INTERNAL; /* knobs of another algorithm */
	}
	if (a->builtin) {
		usmp__call self = *c;
		self.knobs = k;
		rc = a->builtin(&self);
		c->who = self.who;
		c->error = self.error;
		c->verified = self.verified;
	} else {
		/* call_plugin may replace a NULL str by "": work on a copy. */
		usmp__value vals[USMP__MAX_KNOBS];
		usmp__knobs tmp = *k;
		if (a->sig.count > USMP__MAX_KNOBS) {
			rc = USMP_ERR_INTERNAL;
			goto out;
		}
		if (a->sig.count)
			memcpy(vals, k->values, a->sig.count * sizeof *vals);
		tmp.values = vals;
		double t0 = usmp__now();
		rc = call_plugin(a, &tmp, c->view, &c->hc->host, c->out);
		c->call_s = usmp__now() - t0;
	}
out:
	usmp__knobs_finish(&defaults);
	return rc;
}
