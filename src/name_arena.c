/* name_arena.c — where a problem's names live: copied into large chunks that
 * never move, freed all at once with the problem. */
#include "problem.h"

#include <stdlib.h>
#include <string.h>

/* Names are copied into large chunks, so ten million buffers cost ten
 * million short copies rather than ten million mallocs. Chunks never move,
 * so the strmaps can borrow the names. */

struct usmp__name_chunk {
	struct usmp__name_chunk *next;
	size_t used, cap;
	char data[];
};

#define CHUNK_MIN ((size_t)4096)
#define CHUNK_MAX ((size_t)1 << 20)

static struct usmp__name_chunk *chunk_new(size_t cap)
{
	struct usmp__name_chunk *c;

	if (cap > SIZE_MAX - sizeof(*c))
		return NULL;
	c = malloc(sizeof(*c) + cap);
	if (!c)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	return c;
}

char *usmp__name_copy(usmp_problem *p, const char *s)
{
	struct usmp__name_chunk *head = p->name_chunks, *c;
	size_t len = strlen(s) + 1;
	char *d;

	if (head && head->cap - head->used >= len) {
		c = head;
	} else if (len > CHUNK_MIN / 4) {
		/* A long name gets a chunk of its own, linked behind the head so
		 * the head's free space stays in use. */
		c = chunk_new(len);
		if (!c)
			return NULL;
		if (head) {
			c->next = head->next;
			head->next = c;
		} else {
			p->name_chunks = c;
		}
	} else {
		size_t cap = head ? head->cap * 2 : CHUNK_MIN;

		if (cap > CHUNK_MAX)
			cap = CHUNK_MAX;
		c = chunk_new(cap);
		if (!c)
			return NULL;
		c->next = head;
		p->name_chunks = c;
	}
	d = c->data + c->used;
	memcpy(d, s, len);
	c->used += len;
	return d;
}

void usmp__names_free(usmp_problem *p)
{
	struct usmp__name_chunk *c = p->name_chunks, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	p->name_chunks = NULL;
}
